import { createHash } from 'node:crypto';
import type { RecordFormat } from '@guidepost/platform-http';

/** What a blob key segment may safely be: every blob adapter takes it as is. */
const PLAIN_SEGMENT = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Where an upload is staged: `imports/<account>/<upload id>.<ndjson|csv>`. Account ids are plain
 * (the gateway only lets through accounts that exist); any other id is replaced by its SHA-256 all
 * the same, so that no id can escape its folder. Upload ids are UUIDs.
 */
export function importBlobKey(accountId: string, uploadId: string, format: RecordFormat): string {
  const account = PLAIN_SEGMENT.test(accountId) ? accountId : createHash('sha256').update(accountId).digest('hex');
  return `imports/${account}/${uploadId}.${format}`;
}
