import { createHash } from 'node:crypto';

/** What a blob key segment may safely be: every blob adapter takes it as is (no dots, no escaping). */
const PLAIN_SEGMENT = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Where a membership export is written: `exports/<account>/<job>.<extension>`. Account and job ids
 * are used as they are when they are plain; any other id (with dots, spaces, slashes...) is replaced by
 * its SHA-256, so no id can escape its folder or be refused by the store.
 */
export function exportBlobKey(accountId: string, jobId: string, extension: string): string {
  return `exports/${keySegment(accountId)}/${keySegment(jobId)}.${extension}`;
}

function keySegment(id: string): string {
  return PLAIN_SEGMENT.test(id) ? id : createHash('sha256').update(id).digest('hex');
}
