export { BlobStore, type OpenedBlob, type SignedBlobLink } from './blob-store.port';
export { MAX_LINK_TTL_SECONDS } from './link-lifetime';
export { BlobModule } from './blob.module';
