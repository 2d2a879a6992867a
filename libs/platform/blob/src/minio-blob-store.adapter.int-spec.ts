import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { Test } from '@nestjs/testing';
import { Client } from 'minio';
import { loadConfig, type S3Settings } from '@guidepost/platform-config';
import { BlobModule } from './blob.module';
import { BlobStore } from './blob-store.port';
import { BlobStoreProbe } from './blob-store.probe';
import { MinioBlobStore } from './minio-blob-store.adapter';

const MiB = 1024 * 1024;
const PART_SIZE = 5 * MiB;

/** The settings the services would read, with a bucket of this run's own and the smallest part size S3 allows. */
function settingsFor(bucket: string): S3Settings {
  const { s3 } = loadConfig({
    GUIDEPOST_S3_ENDPOINT: process.env['GUIDEPOST_S3_ENDPOINT'],
    GUIDEPOST_S3_ACCESS_KEY: process.env['GUIDEPOST_S3_ACCESS_KEY'],
    GUIDEPOST_S3_SECRET_KEY: process.env['GUIDEPOST_S3_SECRET_KEY'],
    GUIDEPOST_S3_BUCKET: bucket,
    GUIDEPOST_S3_PART_SIZE_BYTES: String(PART_SIZE),
  });
  if (!s3) throw new Error('GUIDEPOST_S3_ENDPOINT is not set');
  return s3;
}

function uniqueBucket(): string {
  return `guidepost-it-${randomUUID()}`;
}

/** A client of the test's own, to look behind the store (unfinished uploads, cleanup). */
function inspector(settings: S3Settings): Client {
  const endpoint = new URL(settings.endpoint);
  return new Client({
    endPoint: endpoint.hostname,
    port: Number(endpoint.port) || undefined,
    useSSL: endpoint.protocol === 'https:',
    accessKey: settings.accessKey,
    secretKey: settings.secretKey,
    region: settings.region,
  });
}

async function removeBucket(client: Client, bucket: string): Promise<void> {
  if (!(await client.bucketExists(bucket))) return;
  const keys: string[] = [];
  for await (const item of client.listObjectsV2(bucket, '', true) as AsyncIterable<{ name?: string }>) {
    if (item.name) keys.push(item.name);
  }
  await client.removeObjects(bucket, keys);
  await client.removeBucket(bucket);
}

async function unfinishedUploads(client: Client, bucket: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const upload of client.listIncompleteUploads(bucket, '', true) as AsyncIterable<{ key: string }>) keys.push(upload.key);
  return keys;
}

/** `bytes` random bytes in 64 KiB chunks, as a request or an export writer hands them over. */
function chunked(bytes: Buffer): Readable {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += 64 * 1024) chunks.push(bytes.subarray(offset, offset + 64 * 1024));
  return Readable.from(chunks);
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('MinioBlobStore against a real S3 server', () => {
  const settings = settingsFor(uniqueBucket());
  const client = inspector(settings);
  let store: MinioBlobStore;

  beforeAll(async () => {
    store = new MinioBlobStore(settings);
    await store.ensureBucket();
  });

  afterAll(() => removeBucket(client, settings.bucket));

  it('creates its bucket at start, and a second store on the same bucket starts too', async () => {
    await expect(client.bucketExists(settings.bucket)).resolves.toBe(true);
    await expect(new MinioBlobStore(settings).ensureBucket()).resolves.toBeUndefined();
  });

  it('stores a body bigger than one part in parts of the configured size and gives it back byte for byte', async () => {
    const body = randomBytes(12 * MiB + 12_345);
    await expect(store.put('imports/acme/upload-1.csv', chunked(body), 'text/csv')).resolves.toEqual({ bytes: body.length });

    const blob = await store.open('imports/acme/upload-1.csv');
    expect(blob).toMatchObject({ bytes: body.length, contentType: 'text/csv' });
    const chunks: Buffer[] = [];
    for await (const chunk of blob!.stream) chunks.push(chunk as Buffer);
    expect(sha256(Buffer.concat(chunks))).toBe(sha256(body));
    // A multipart object's ETag ends with its number of parts: 12 MiB in 5 MiB parts is three.
    const stat = await client.statObject(settings.bucket, 'imports/acme/upload-1.csv');
    expect(stat.etag).toMatch(/-3$/);
  });

  it('stores a small body and an empty one in one request each', async () => {
    await expect(store.put('exports/acme/small.ndjson', Readable.from(['{"row":1}\n']), 'application/x-ndjson')).resolves.toEqual({
      bytes: 10,
    });
    await expect(store.put('exports/acme/empty.ndjson', Readable.from([]), 'application/x-ndjson')).resolves.toEqual({ bytes: 0 });

    const small = await store.open('exports/acme/small.ndjson');
    expect(small).toMatchObject({ bytes: 10, contentType: 'application/x-ndjson' });
    await expect(text(small!.stream)).resolves.toBe('{"row":1}\n');
    const empty = await store.open('exports/acme/empty.ndjson');
    expect(empty).toMatchObject({ bytes: 0 });
    await expect(text(empty!.stream)).resolves.toBe('');
  });

  it('replaces an object put again under the same key', async () => {
    await store.put('exports/acme/again.json', Readable.from(['{"v":1}']), 'application/json');
    await store.put('exports/acme/again.json', Readable.from(['{"v":2}\n']), 'application/x-ndjson');
    const blob = await store.open('exports/acme/again.json');
    expect(blob).toMatchObject({ bytes: 8, contentType: 'application/x-ndjson' });
    await expect(text(blob!.stream)).resolves.toBe('{"v":2}\n');
  });

  it('fails when the body fails mid-stream, keeping the old object and leaving no unfinished upload', async () => {
    await store.put('imports/acme/broken.csv', Readable.from(['old']), 'text/csv');
    let sent = 0;
    const failing = new Readable({
      read() {
        if (sent < 6 * MiB) {
          sent += MiB;
          this.push(randomBytes(MiB));
        } else {
          this.destroy(new Error('client went away'));
        }
      },
    });
    await expect(store.put('imports/acme/broken.csv', failing, 'text/csv')).rejects.toThrow('client went away');
    await expect(text((await store.open('imports/acme/broken.csv'))!.stream)).resolves.toBe('old');
    await expect(unfinishedUploads(client, settings.bucket)).resolves.toEqual([]);
  });

  it('answers undefined for a key with no object', async () => {
    await expect(store.open('exports/acme/missing.csv')).resolves.toBeUndefined();
  });

  it('deletes an object, and resolves when there is none', async () => {
    await store.put('imports/acme/staged.ndjson', Readable.from(['{}\n']), 'application/ndjson');
    await store.delete('imports/acme/staged.ndjson');
    await expect(store.open('imports/acme/staged.ndjson')).resolves.toBeUndefined();
    await expect(store.delete('imports/acme/staged.ndjson')).resolves.toBeUndefined();
  });

  it('deletes the objects under a prefix written before a time, and no others', async () => {
    await store.put('exports/sweep/old.csv', Readable.from(['old']), 'text/csv');
    await store.put('imports/sweep/staged.csv', Readable.from(['staged']), 'text/csv');
    // S3 keeps modification times in whole seconds: the cut falls clearly between the two writes.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const cut = new Date();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await store.put('exports/sweep/new.csv', Readable.from(['new']), 'text/csv');

    await expect(store.deleteOlderThan('exports/sweep/', cut)).resolves.toBe(1);
    await expect(store.open('exports/sweep/old.csv')).resolves.toBeUndefined();
    await expect(text((await store.open('exports/sweep/new.csv'))!.stream)).resolves.toBe('new');
    await expect(text((await store.open('imports/sweep/staged.csv'))!.stream)).resolves.toBe('staged');
  });

  it('frees the parts of a multipart upload abandoned before a time (one whose abort failed while the store was down)', async () => {
    const uploadId = await client.initiateNewMultipartUpload(settings.bucket, 'exports/sweep/abandoned.csv', {});
    await client.uploadPart(
      { bucketName: settings.bucket, objectName: 'exports/sweep/abandoned.csv', uploadID: uploadId, partNumber: 1, headers: {} },
      randomBytes(PART_SIZE),
    );
    await expect(unfinishedUploads(client, settings.bucket)).resolves.toEqual(['exports/sweep/abandoned.csv']);

    await expect(store.discardAbandonedWrites(new Date(Date.now() - 3_600_000))).resolves.toBe(0);
    await expect(store.discardAbandonedWrites(new Date(Date.now() + 60_000))).resolves.toBe(1);
    await expect(unfinishedUploads(client, settings.bucket)).resolves.toEqual([]);
  });

  it('links an object for download without credentials, as a file named after the key, kept by no cache and never sniffed', async () => {
    await store.put('exports/acme/job-1.csv', Readable.from(['user_id\nu1\n']), 'text/csv');
    const link = await store.signedUrl('exports/acme/job-1.csv', 60);
    expect(new URL(link.url).origin).toBe(settings.endpoint);

    const response = await fetch(link.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="job-1.csv"');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    await expect(response.text()).resolves.toBe('user_id\nu1\n');

    const tampered = new URL(link.url);
    tampered.pathname = tampered.pathname.replace('job-1.csv', 'job-2.csv');
    expect((await fetch(tampered)).status).toBe(403);
  });

  it('links that have expired download nothing', async () => {
    await store.put('exports/acme/job-2.csv', Readable.from(['user_id\n']), 'text/csv');
    const link = await store.signedUrl('exports/acme/job-2.csv', 1);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const response = await fetch(link.url);
    expect(response.status).toBe(403);
    await expect(response.text()).resolves.toContain('expired');
  });
});

describe('BlobModule with S3 settings', () => {
  const bucket = uniqueBucket();
  const settings = settingsFor(bucket);
  const client = inspector(settings);

  afterAll(() => removeBucket(client, bucket));

  it('provides the S3 store, creating its bucket, and reports readiness by whether the bucket answers', async () => {
    const config = loadConfig({
      GUIDEPOST_S3_ENDPOINT: settings.endpoint,
      GUIDEPOST_S3_ACCESS_KEY: settings.accessKey,
      GUIDEPOST_S3_SECRET_KEY: settings.secretKey,
      GUIDEPOST_S3_BUCKET: bucket,
    });
    const moduleRef = await Test.createTestingModule({ imports: [BlobModule.forRoot(config)] }).compile();
    try {
      expect(moduleRef.get(BlobStore)).toBeInstanceOf(MinioBlobStore);
      await expect(client.bucketExists(bucket)).resolves.toBe(true);

      const probe = moduleRef.get(BlobStoreProbe);
      expect(probe.name).toBe('blob-store');
      await expect(probe.check()).resolves.toBeUndefined();
      await client.removeBucket(bucket);
      await expect(probe.check()).rejects.toThrow(`bucket ${bucket} does not exist`);
    } finally {
      await moduleRef.close();
    }
  });
});
