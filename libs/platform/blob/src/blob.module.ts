import { join } from 'node:path';
import { Global, Module } from '@nestjs/common';
import { AppConfig } from '@guidepost/platform-config';
import { BlobDownloadController } from './blob-download.controller';
import { BlobLinkSigner } from './blob-link-signer';
import { BlobStore } from './blob-store.port';
import { FolderBlobStore } from './folder-blob-store.adapter';

/**
 * Provides `BlobStore` (the folder adapter, under `<dataDir>/blobs`) and serves its signed links.
 * Needs `AppConfig.blobSigningSecret`: without it no link could be signed, so start-up fails.
 */
@Global()
@Module({
  controllers: [BlobDownloadController],
  providers: [
    {
      provide: BlobLinkSigner,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => {
        if (!config.blobSigningSecret) {
          throw new Error(
            'GUIDEPOST_BLOB_SIGNING_SECRET is not set: blob download links cannot be signed. Set it (32 characters or more), ' +
              'or let the host generate one before it starts the blob module.',
          );
        }
        return new BlobLinkSigner(config.blobSigningSecret, config.publicUrl);
      },
    },
    {
      provide: BlobStore,
      inject: [AppConfig, BlobLinkSigner],
      useFactory: (config: AppConfig, signer: BlobLinkSigner) => new FolderBlobStore(join(config.dataDir, 'blobs'), signer),
    },
  ],
  exports: [BlobStore],
})
export class BlobModule {}
