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
