import { join } from 'node:path';
import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import type { AppConfig, S3Settings } from '@guidepost/platform-config';
import { BlobDownloadController } from './blob-download.controller';
import { BlobLinkSigner } from './blob-link-signer';
import { BlobRetention } from './blob-retention';
import { BlobStore } from './blob-store.port';
import { BlobStoreProbe } from './blob-store.probe';
import { FolderBlobStore } from './folder-blob-store.adapter';
import { MinioBlobStore } from './minio-blob-store.adapter';

/**
 * Provides `BlobStore` everywhere (global), picked by the configuration: S3 (MinIO) when `config.s3`
 * is set, else the folder under `<dataDir>/blobs` with its signed-link route `GET /blobs/<key>`; and
 * the sweep that deletes expired export files (`BlobRetention`).
 */
@Module({})
export class BlobModule {
  static forRoot(config: AppConfig): DynamicModule {
    return config.s3 ? s3BlobStore(config.s3, config.blobSweepIntervalMs) : folderBlobStore(config);
  }
}

/**
 * The S3 adapter, its bucket created at start-up when missing, and its readiness probe (`blob-store`).
 * Its links are presigned S3 URLs, so no route of ours serves downloads.
 */
function s3BlobStore(settings: S3Settings, sweepIntervalMs: number): DynamicModule {
  return {
    module: BlobModule,
    global: true,
    providers: [
      {
        provide: MinioBlobStore,
        useFactory: async () => {
          const store = new MinioBlobStore(settings);
          await store.ensureBucket();
          return store;
        },
      },
      { provide: BlobStore, useExisting: MinioBlobStore },
      BlobStoreProbe,
      retention(sweepIntervalMs),
    ],
    exports: [BlobStore],
  };
}

/**
 * The folder adapter and the route serving its signed links. Needs `blobSigningSecret`: without it no
 * link could be signed, so start-up fails.
 */
function folderBlobStore(config: AppConfig): DynamicModule {
  return {
    module: BlobModule,
    global: true,
    controllers: [BlobDownloadController],
    providers: [
      {
        provide: BlobLinkSigner,
        useFactory: () => {
          if (!config.blobSigningSecret) {
            throw new Error(
              'GUIDEPOST_BLOB_SIGNING_SECRET is not set: blob download links cannot be signed. Set it (32 characters or more), ' +
                'or let the host generate one before it starts the blob module.',
            );
          }
          return new BlobLinkSigner(config.blobSigningSecret);
        },
      },
      {
        provide: BlobStore,
        inject: [BlobLinkSigner],
        useFactory: (signer: BlobLinkSigner) => new FolderBlobStore(join(config.dataDir, 'blobs'), signer),
      },
      retention(config.blobSweepIntervalMs),
    ],
    exports: [BlobStore],
  };
}

/** The sweep of expired export files and abandoned writes, on whichever store the module provides. */
function retention(intervalMs: number): Provider {
  return { provide: BlobRetention, inject: [BlobStore], useFactory: (blobs: BlobStore) => new BlobRetention(blobs, intervalMs) };
}
