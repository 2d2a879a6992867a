/** User ids per chunk of a membership change: one staged row and one bus message each. */
export const USER_IDS_PER_CHUNK = 5_000;

/**
 * Groups a stream of user ids into chunks of at most `size`, holding only the chunk being filled.
 * The ids come checked (`userIdsOf` refuses, naming the line or index, any id the API does not take,
 * such as one PostgreSQL cannot store); a failure of the input passes through after the chunks before it.
 */
export async function* chunkUserIds(userIds: AsyncIterable<string>, size = USER_IDS_PER_CHUNK): AsyncGenerator<string[]> {
  let chunk: string[] = [];
  for await (const userId of userIds) {
    chunk.push(userId);
    if (chunk.length === size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}
