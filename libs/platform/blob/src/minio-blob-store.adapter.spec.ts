import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { classifyFailure } from '@guidepost/platform-failures';
import type { S3Settings } from '@guidepost/platform-config';
import { MAX_LINK_TTL_SECONDS } from './link-lifetime';
import { MinioBlobStore } from './minio-blob-store.adapter';

/** Port 9 (discard) on loopback: nothing answers there, so anything that needs the server fails. */
const UNREACHABLE: S3Settings = {
  endpoint: 'http://127.0.0.1:9',
  accessKey: 'guidepost',
  secretKey: 'guidepost-secret',
  bucket: 'guidepost-exports',
  region: 'eu-west-3',
  partSizeBytes: 5 * 1024 * 1024,
  waitLimitMs: 5_000,
};
const NOW_MS = Date.UTC(2026, 10, 21, 16, 0, 0, 750);

describe('MinioBlobStore links', () => {
  const store = new MinioBlobStore(UNREACHABLE, () => NOW_MS);

  it('are presigned S3 GET URLs of the object on the endpoint, made without asking the server', async () => {
    const link = await store.signedUrl('exports/acme/job-1.csv', 3600);
    const url = new URL(link.url);
    expect(`${url.origin}${url.pathname}`).toBe('http://127.0.0.1:9/guidepost-exports/exports/acme/job-1.csv');
    expect(url.searchParams.get('X-Amz-Credential')).toBe('guidepost/20261121/eu-west-3/s3/aws4_request');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20261121T160000Z');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('3600');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(url.searchParams.get('response-content-disposition')).toBe('attachment; filename="job-1.csv"');
    expect(url.searchParams.get('response-cache-control')).toBe('no-store');
  });

  it('say when they expire: the signing second plus their lifetime', async () => {
    await expect(store.signedUrl('exports/acme/job-1.csv', 3600)).resolves.toMatchObject({ expiresAt: '2026-11-21T17:00:00.000Z' });
    await expect(store.signedUrl('exports/acme/job-1.csv', MAX_LINK_TTL_SECONDS)).resolves.toMatchObject({
      expiresAt: '2026-11-28T16:00:00.000Z',
    });
  });

  it('cannot outlive one week, the most S3 accepts', async () => {
    await expect(store.signedUrl('exports/acme/job-1.csv', MAX_LINK_TTL_SECONDS + 1)).rejects.toThrow(RangeError);
    await expect(store.signedUrl('exports/acme/job-1.csv', 0)).rejects.toThrow(RangeError);
    await expect(store.signedUrl('exports/acme/job-1.csv', 1.5)).rejects.toThrow(RangeError);
  });

  it('are never made for an invalid key', async () => {
    await expect(store.signedUrl('../etc/passwd', 60)).rejects.toThrow('".."');
  });
});

describe('MinioBlobStore with a server that says nothing (frozen, or cut off)', () => {
  it('fails a write and a read as unavailable once the wait limit has passed, instead of holding the caller', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const store = new MinioBlobStore({
      ...UNREACHABLE,
      endpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
      waitLimitMs: 300,
    });
    try {
      for (const call of [
        () => store.put('imports/acme/a.ndjson', Readable.from([Buffer.from('{}\n')]), 'application/x-ndjson'),
        () => store.open('imports/acme/a.ndjson'),
      ]) {
        const started = Date.now();
        const failure: unknown = await call().catch((error: unknown) => error);
        expect(Date.now() - started).toBeLessThan(3_000);
        expect({ failure: String(failure), class: classifyFailure(failure) }).toEqual({
          failure: 'TransientFailure: the blob store did not answer within 300 ms',
          class: 'transient',
        });
      }
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
