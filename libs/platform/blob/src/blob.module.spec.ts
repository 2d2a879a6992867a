import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Test } from '@nestjs/testing';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from '@guidepost/platform-config';
import { BlobModule } from './blob.module';
import { BlobStore } from './blob-store.port';
import { FolderBlobStore } from './folder-blob-store.adapter';

describe('BlobModule without S3 settings', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'guidepost-blob-module-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  async function start(env: Record<string, string>): Promise<NestFastifyApplication> {
    const config = loadConfig({ GUIDEPOST_DATA_DIR: dataDir, ...env });
    const moduleRef = await Test.createTestingModule({ imports: [BlobModule.forRoot(config)] }).compile();
    const app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter());
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    return app;
  }

  it('keeps blobs in the data folder and serves their signed links under /blobs', async () => {
    const app = await start({ GUIDEPOST_BLOB_SIGNING_SECRET: 'a-signing-secret-of-thirty-two-characters' });
    try {
      const store = app.get(BlobStore);
      expect(store).toBeInstanceOf(FolderBlobStore);
      await store.put('exports/acme/job-1.csv', Readable.from(['id\n1\n']), 'text/csv');
      const link = await store.signedUrl('exports/acme/job-1.csv', 60, 'http://guidepost.test');
      expect(link.url.startsWith('http://guidepost.test/blobs/exports/acme/job-1.csv?')).toBe(true);

      const response = await app.inject({ method: 'GET', url: link.url.replace('http://guidepost.test', '') });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/csv');
      expect(response.body).toBe('id\n1\n');
    } finally {
      await app.close();
    }
  });

  it('refuses to start without a signing secret', async () => {
    await expect(start({})).rejects.toThrow('GUIDEPOST_BLOB_SIGNING_SECRET is not set');
  });
});

describe('BlobModule with S3 settings', () => {
  it('fails to start when the S3 server cannot be reached, naming the bucket and endpoint', async () => {
    // Port 9 (discard) on loopback: nothing answers there.
    const config = loadConfig({
      GUIDEPOST_S3_ENDPOINT: 'http://127.0.0.1:9',
      GUIDEPOST_S3_ACCESS_KEY: 'guidepost',
      GUIDEPOST_S3_SECRET_KEY: 'guidepost-secret',
      GUIDEPOST_S3_BUCKET: 'guidepost-exports',
    });
    await expect(Test.createTestingModule({ imports: [BlobModule.forRoot(config)] }).compile()).rejects.toThrow(
      "the blob store's bucket guidepost-exports at http://127.0.0.1:9 could not be found or created",
    );
  });
});
