export { BlobStore, type OpenedBlob, type SignedBlobLink } from './blob-store.port';
export { MAX_LINK_TTL_SECONDS } from './link-lifetime';
export { BlobModule } from './blob.module';
export {
  EXPORT_ATTEMPTS,
  EXPORT_LINK_TTL_SECONDS,
  exportBlobKey,
  reportExportCompleted,
  reportExportFailed,
  storeExportWithRetries,
  type ExportArtifact,
  type ExportCompletion,
  type ExportFile,
  type ExportJob,
  type ExportWriter,
} from './export-delivery';
