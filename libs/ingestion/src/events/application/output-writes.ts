import { once } from 'node:events';
import type { Writable } from 'node:stream';

/** Writes, then waits while the output is full; rejects when it fails or closes instead of draining (never hangs). */
export async function write(output: Writable, bytes: string | Buffer): Promise<void> {
  if (output.write(bytes)) return;
  const waiting = new AbortController();
  const closed = once(output, 'close', { signal: waiting.signal }).then(() => {
    throw output.errored ?? new Error('the export output closed before the export was written');
  });
  try {
    await Promise.race([once(output, 'drain', { signal: waiting.signal }), closed]);
  } finally {
    waiting.abort();
  }
}
