import type { Readable } from 'node:stream';

/** A stored object, opened for reading. */
export interface OpenedBlob {
  readonly stream: Readable;
  readonly bytes: number;
  readonly contentType: string;
}

/** A link that downloads one object without credentials until it expires. */
export interface SignedBlobLink {
  readonly url: string;
  /** ISO 8601 (UTC) end of the link's validity. */
  readonly expiresAt: string;
}

/**
 * Storage for large objects (staged uploads, export results). Keys are relative paths of
 * `[A-Za-z0-9._-]` segments joined by `/` (see `assertValidBlobKey`). Adapters: a local folder in
 * the standalone shape, an S3-compatible store (MinIO) in the distributed one.
 */
export abstract class BlobStore {
  /** Streams `body` into the object `key` (replacing it), with bounded memory; a reader never sees half an object. */
  abstract put(key: string, body: Readable, contentType: string): Promise<{ bytes: number }>;
  /** The object, or undefined when there is none under `key`. The caller consumes or destroys the stream. */
  abstract open(key: string): Promise<OpenedBlob | undefined>;
  /**
   * A download link for `key` valid `ttlSeconds` (a whole number from 1 to one week, the most an S3
   * presigned URL allows; `RangeError` otherwise). Signing needs no object: the link of a missing key
   * answers "not found". A link the API serves itself (the folder adapter's `/blobs/...`) starts with
   * `publicBaseUrl`, that of the request the link is for (`@PublicBaseUrl()`); a presigned S3 link
   * names the S3 endpoint instead.
   */
  abstract signedUrl(key: string, ttlSeconds: number, publicBaseUrl: string): Promise<SignedBlobLink>;
  /** Removes the object `key`; resolves as well when there is none (deleting twice is harmless). */
  abstract delete(key: string): Promise<void>;
  /** Removes every object under `prefix` (e.g. `exports/`) last written before `before`; resolves with how many. */
  abstract deleteOlderThan(prefix: string, before: Date): Promise<number>;
  /**
   * Frees what writes abandoned before `before` left behind (a staging file of a process that died, the
   * parts of an S3 multipart upload that could not be aborted because the store was down); resolves
   * with how many.
   */
  abstract discardAbandonedWrites(before: Date): Promise<number>;
}
