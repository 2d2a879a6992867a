import { DomainError } from '@guidepost/platform-http';
import { isStorableText } from './profile-properties';

/** Users associated per statement (and `svc:profile_update` events per message) when associating a group. */
export const USERS_PER_BATCH = 5_000;

/**
 * Groups a stream of user ids into batches of at most `size` distinct ids, holding only the batch
 * being filled. Distinct, because one statement may not update the same row twice; an id repeated
 * in another batch is simply written again. An id PostgreSQL cannot store (with a NUL character) is
 * refused with its position rather than failing the transaction with a server error.
 */
export async function* distinctUserIdBatches(userIds: AsyncIterable<string>, size = USERS_PER_BATCH): AsyncGenerator<string[]> {
  let batch = new Set<string>();
  let position = 0;
  for await (const userId of userIds) {
    position += 1;
    if (!isStorableText(userId)) {
      throw new DomainError('invalid_request', `user_ids: user id number ${position} contains a NUL character`);
    }
    batch.add(userId);
    if (batch.size === size) {
      yield [...batch];
      batch = new Set();
    }
  }
  if (batch.size > 0) yield [...batch];
}
