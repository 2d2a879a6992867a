import type { EXPORT_FORMATS } from '@guidepost/contracts-http';

/** How each export format is stored (and downloaded: the link serves this content type). */
export const EXPORT_FILE_TYPES: Record<(typeof EXPORT_FORMATS)[number], { readonly extension: string; readonly contentType: string }> = {
  json: { extension: 'ndjson', contentType: 'application/x-ndjson' },
  csv: { extension: 'csv', contentType: 'text/csv; charset=utf-8' },
};
