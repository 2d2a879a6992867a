import * as http from 'node:http';
import * as https from 'node:https';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { Logger } from '@nestjs/common';
import { Client, type ClientOptions } from 'minio';
import type { S3Settings } from '@guidepost/platform-config';
import { TransientFailure } from '@guidepost/platform-failures';
import { NO_STORE } from '@guidepost/platform-http';
import { assertValidBlobKey } from './blob-key';
import { BlobStore, type OpenedBlob, type SignedBlobLink } from './blob-store.port';
import { type BodyPart, fixedSizeParts } from './fixed-size-parts';
import { assertValidLinkLifetime } from './link-lifetime';

const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
/** What S3 answers for a missing object: `NoSuchKey` to a GET, `NotFound` to a HEAD (which has no body to name it). */
const MISSING_OBJECT_CODES = new Set(['NoSuchKey', 'NotFound']);

/**
 * The blob store of the distributed shape: one object per key in one bucket of an S3-compatible
 * server (MinIO). Bodies are uploaded in parts of `partSizeBytes` (the memory one upload holds), and
 * an object appears only once complete, so a reader sees the old object or the new one. Links are S3
 * presigned GET URLs on the configured endpoint: whoever holds one downloads without credentials.
 */
export class MinioBlobStore extends BlobStore {
  private readonly logger = new Logger(MinioBlobStore.name);
  private readonly client: Client;

  constructor(
    private readonly settings: S3Settings,
    private readonly nowMs: () => number = Date.now,
  ) {
    super();
    this.client = new Client(clientOptionsOf(settings));
  }

  /** Creates the bucket unless it exists (start-up). Another service creating it at the same moment is no error. */
  async ensureBucket(): Promise<void> {
    const { bucket, region, endpoint } = this.settings;
    try {
      if (await this.client.bucketExists(bucket)) return;
      await this.client.makeBucket(bucket, region);
      this.logger.log(`created bucket ${bucket} at ${endpoint}`);
    } catch (error) {
      if (codeOf(error) === 'BucketAlreadyOwnedByYou') return;
      throw new Error(`the blob store's bucket ${bucket} at ${endpoint} could not be found or created: ${String(error)}`, { cause: error });
    }
  }

  /** Resolves when the bucket answers; rejects naming what is wrong otherwise (readiness). */
  async checkBucket(): Promise<void> {
    if (!(await this.client.bucketExists(this.settings.bucket))) {
      throw new Error(`bucket ${this.settings.bucket} does not exist at ${this.settings.endpoint}`);
    }
  }

  async put(key: string, body: Readable, contentType: string): Promise<{ bytes: number }> {
    assertValidBlobKey(key);
    const upload = new ObjectUpload(this.client, this.settings.bucket, key, contentType);
    try {
      for await (const part of fixedSizeParts(body, this.settings.partSizeBytes)) await upload.add(part);
      return { bytes: await upload.complete() };
    } catch (error) {
      await upload
        .abort()
        .catch((abortError: unknown) =>
          this.logger.warn(
            `could not abort the unfinished upload of ${key} (its parts keep taking space on the server): ${String(abortError)}`,
          ),
        );
      throw error;
    }
  }

  async open(key: string): Promise<OpenedBlob | undefined> {
    assertValidBlobKey(key);
    const { bucket } = this.settings;
    const stat = await this.client.statObject(bucket, key).catch(undefinedWhenMissing);
    if (!stat) return undefined;
    // Missing now means deleted since the stat: the same as not there.
    const stream = await this.client.getObject(bucket, key).catch(undefinedWhenMissing);
    if (!stream) return undefined;
    const contentType: unknown = stat.metaData['content-type'];
    return { stream, bytes: stat.size, contentType: typeof contentType === 'string' ? contentType : DEFAULT_CONTENT_TYPE };
  }

  async signedUrl(key: string, ttlSeconds: number): Promise<SignedBlobLink> {
    assertValidBlobKey(key);
    assertValidLinkLifetime(ttlSeconds);
    // S3 signing dates have whole seconds: signing from the current second makes `expiresAt` exactly when S3 stops accepting the link.
    const signedAt = new Date(Math.floor(this.nowMs() / 1000) * 1000);
    // Downloaded as a file named after the key, like the folder adapter's links, and kept by no cache
    // as every answer of the API (the store answers with these headers; MinIO adds `nosniff` itself).
    const download = {
      'response-content-disposition': `attachment; filename="${basename(key)}"`,
      'response-cache-control': NO_STORE,
    };
    const url = await this.client.presignedGetObject(this.settings.bucket, key, ttlSeconds, download, signedAt);
    return { url, expiresAt: new Date(signedAt.getTime() + ttlSeconds * 1000).toISOString() };
  }

  async delete(key: string): Promise<void> {
    assertValidBlobKey(key);
    // S3 answers a delete of a missing object with success too.
    await this.client.removeObject(this.settings.bucket, key);
  }

  async deleteOlderThan(prefix: string, before: Date): Promise<number> {
    const { bucket } = this.settings;
    const old: string[] = [];
    for await (const item of this.client.listObjectsV2(bucket, prefix, true) as AsyncIterable<{ name?: string; lastModified?: Date }>) {
      if (item.name !== undefined && item.lastModified !== undefined && item.lastModified.getTime() < before.getTime()) old.push(item.name);
    }
    // One request removes up to a thousand objects; the client splits larger lists itself.
    if (old.length > 0) await this.client.removeObjects(bucket, old);
    return old.length;
  }

  async discardAbandonedWrites(before: Date): Promise<number> {
    const { bucket } = this.settings;
    const abandoned: { key: string; uploadId: string }[] = [];
    for await (const upload of this.client.listIncompleteUploads(bucket, '', true) as AsyncIterable<{
      key: string;
      uploadId: string;
      initiated: Date;
    }>) {
      if (upload.initiated.getTime() < before.getTime()) abandoned.push(upload);
    }
    for (const { key, uploadId } of abandoned) await this.client.abortMultipartUpload(bucket, key, uploadId);
    return abandoned.length;
  }
}

/**
 * One object being written. A body that fits in one part is sent in one PUT; a larger one becomes a
 * multipart upload, started with its first part and completed after its last. (The client's own
 * `putObject` streaming never settles when the body fails, leaving its multipart upload behind; and it
 * resumes any unfinished upload of the same key, mixing an abandoned attempt's parts into a new one.)
 */
class ObjectUpload {
  private uploadId: string | undefined;
  private readonly parts: { part: number; etag: string }[] = [];
  private bytes = 0;

  constructor(
    private readonly client: Client,
    private readonly bucket: string,
    private readonly key: string,
    private readonly contentType: string,
  ) {}

  async add(part: BodyPart): Promise<void> {
    this.bytes += part.data.length;
    if (part.last && this.uploadId === undefined) {
      await this.client.putObject(this.bucket, this.key, part.data, part.data.length, { 'Content-Type': this.contentType });
      return;
    }
    this.uploadId ??= await this.client.initiateNewMultipartUpload(this.bucket, this.key, { 'Content-Type': this.contentType });
    const uploaded = await this.client.uploadPart(
      { bucketName: this.bucket, objectName: this.key, uploadID: this.uploadId, partNumber: this.parts.length + 1, headers: {} },
      part.data,
    );
    this.parts.push({ part: uploaded.part, etag: uploaded.etag });
  }

  /** Makes the object appear (multipart: assembles the parts); resolves with its size in bytes. */
  async complete(): Promise<number> {
    if (this.uploadId !== undefined) await this.client.completeMultipartUpload(this.bucket, this.key, this.uploadId, this.parts);
    return this.bytes;
  }

  /** Frees the parts uploaded so far; the object stays as it was. */
  async abort(): Promise<void> {
    if (this.uploadId !== undefined) await this.client.abortMultipartUpload(this.bucket, this.key, this.uploadId);
  }
}

function clientOptionsOf(settings: S3Settings): ClientOptions {
  const endpoint = new URL(settings.endpoint);
  const useSSL = endpoint.protocol === 'https:';
  return {
    endPoint: endpoint.hostname,
    port: endpoint.port === '' ? undefined : Number(endpoint.port),
    useSSL,
    accessKey: settings.accessKey,
    secretKey: settings.secretKey,
    // With the region known, presigning is computed locally instead of asking the server where the bucket is.
    region: settings.region,
    transport: silenceBoundTransport(useSSL ? https : http, settings.waitLimitMs),
  };
}

/**
 * Node's HTTP(S) with a bound on the server's silence until it answers: a request whose socket sees no
 * byte move for `limitMs` (a frozen or cut-off server takes a connection, or a part of an upload, and
 * says nothing) is destroyed with a transient failure, instead of waiting for as long as the socket
 * lives. Once the answer has begun the bound is lifted: a reader of a large object may pause for as long
 * as it likes (an import paces itself).
 */
function silenceBoundTransport(transport: typeof http | typeof https, limitMs: number): NonNullable<ClientOptions['transport']> {
  return {
    request: ((options: http.RequestOptions, answered?: (response: http.IncomingMessage) => void) => {
      const request = transport.request(options, (response) => {
        request.setTimeout(0);
        answered?.(response);
      });
      request.setTimeout(limitMs, () => request.destroy(new TransientFailure(`the blob store did not answer within ${limitMs} ms`)));
      return request;
    }) as typeof http.request,
  };
}

function undefinedWhenMissing(error: unknown): undefined {
  if (MISSING_OBJECT_CODES.has(codeOf(error) ?? '')) return undefined;
  throw error;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}
