/** Users associated per statement (and `svc:profile_update` events per message) when associating a group. */
export const USERS_PER_BATCH = 5_000;

/**
 * Groups a stream of user ids into batches of at most `size` distinct ids, holding only the batch
 * being filled. Distinct, because one statement may not update the same row twice; an id repeated
 * in another batch is simply written again. The ids come checked (`userIdsOf` refuses, naming the
 * line or index, any id the API does not take, such as one PostgreSQL cannot store).
 */
export async function* distinctUserIdBatches(userIds: AsyncIterable<string>, size = USERS_PER_BATCH): AsyncGenerator<string[]> {
  let batch = new Set<string>();
  for await (const userId of userIds) {
    batch.add(userId);
    if (batch.size === size) {
      yield [...batch];
      batch = new Set();
    }
  }
  if (batch.size > 0) yield [...batch];
}
