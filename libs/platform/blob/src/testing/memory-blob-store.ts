import type { Readable } from 'node:stream';
import { BlobStore, type OpenedBlob, type SignedBlobLink } from '../blob-store.port';

/** One stored object of the memory store. */
export interface MemoryBlob {
  readonly text: string;
  readonly contentType: string;
  readonly writtenAt: Date;
}

/**
 * The blob store for unit specs: objects kept in memory, links that name the key, and failures on
 * demand (`failuresLeft` next writes fail with `failure()`, the body destroyed as a real store does).
 */
export class MemoryBlobStore extends BlobStore {
  readonly files = new Map<string, MemoryBlob>();
  /** The lifetime asked for each link, in order. */
  readonly ttls: number[] = [];
  failuresLeft = 0;
  failure: () => Error = () => new Error('store unavailable');

  constructor(private readonly now: () => Date = () => new Date()) {
    super();
  }

  async put(key: string, body: Readable, contentType: string): Promise<{ bytes: number }> {
    if (this.failuresLeft > 0) {
      this.failuresLeft -= 1;
      body.destroy();
      throw this.failure();
    }
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    this.files.set(key, { text, contentType, writtenAt: this.now() });
    return { bytes: Buffer.byteLength(text) };
  }

  open(): Promise<OpenedBlob | undefined> {
    return Promise.resolve(undefined);
  }

  signedUrl(key: string, ttlSeconds: number, publicBaseUrl: string): Promise<SignedBlobLink> {
    this.ttls.push(ttlSeconds);
    return Promise.resolve({ url: `${publicBaseUrl}/blobs/${key}?signature=s`, expiresAt: '2026-01-08T00:00:00.000Z' });
  }

  delete(key: string): Promise<void> {
    this.files.delete(key);
    return Promise.resolve();
  }

  deleteOlderThan(prefix: string, before: Date): Promise<number> {
    const old = [...this.files].filter(([key, blob]) => key.startsWith(prefix) && blob.writtenAt < before).map(([key]) => key);
    for (const key of old) this.files.delete(key);
    return Promise.resolve(old.length);
  }

  discardAbandonedWrites(): Promise<number> {
    return Promise.resolve(0);
  }
}
