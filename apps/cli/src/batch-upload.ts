/** Records per request: well under the server's body limit for typical content records. */
export const BATCH_SIZE = 500;

/** Follows an upload; a progress bar in a terminal, nothing otherwise. */
export interface UploadProgress {
  advance(records: number): void;
  stop(): void;
}

export function batchesOf<T>(items: readonly T[], size = BATCH_SIZE): T[][] {
  const batches: T[][] = [];
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size));
  return batches;
}

/**
 * Sends the batches one after another. A failure says which records it concerned and how many were
 * already stored, so the rest can be sent again after a fix (upserts are safe to repeat).
 */
export async function uploadInBatches<T>(
  batches: readonly T[][],
  send: (batch: T[]) => Promise<number>,
  progress?: UploadProgress,
): Promise<number> {
  let upserted = 0;
  let offset = 0;
  try {
    for (const [index, batch] of batches.entries()) {
      try {
        upserted += await send(batch);
      } catch (error) {
        const range = `records ${offset + 1}-${offset + batch.length}`;
        const message = error instanceof Error ? error.message : String(error);
        throw new Error(`batch ${index + 1} of ${batches.length} (${range}) failed after ${upserted} upserted: ${message}`, {
          cause: error,
        });
      }
      offset += batch.length;
      progress?.advance(batch.length);
    }
  } finally {
    progress?.stop();
  }
  return upserted;
}
