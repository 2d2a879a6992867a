export { BlobStore, type OpenedBlob, type SignedBlobLink } from './blob-store.port';
export { MAX_LINK_TTL_SECONDS } from './blob-link-signer';
export { BlobModule } from './blob.module';
