import { DomainError } from '@guidepost/platform-http';

/** User ids per chunk of a membership change: one staged row and one bus message each. */
export const USER_IDS_PER_CHUNK = 5_000;

/**
 * Groups a stream of user ids into chunks of at most `size`, holding only the chunk being filled.
 * An id PostgreSQL cannot store (one with a NUL character) is refused here, with its position, rather
 * than failing the whole transaction with a server error later.
 */
export async function* chunkUserIds(userIds: AsyncIterable<string>, size = USER_IDS_PER_CHUNK): AsyncGenerator<string[]> {
  let chunk: string[] = [];
  let position = 0;
  for await (const userId of userIds) {
    position += 1;
    if (userId.includes('\u0000')) {
      throw new DomainError('invalid_request', `user_ids: user id number ${position} contains a NUL character`);
    }
    chunk.push(userId);
    if (chunk.length === size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}
