import {
  DEAD_LETTER_PAGE_DEFAULT,
  DEAD_LETTER_PAGE_MAX,
  DEAD_LETTER_STATUSES,
  type DeadLetterFilter,
  type DeadLetterStatus,
} from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';

/** Where a page of dead letters continues: after this row of the newest-first order. */
export interface DeadLetterCursor {
  /** `failed_at` of the last row, to the microsecond, as PostgreSQL wrote it. */
  readonly failedAt: string;
  readonly id: string;
}

export interface DeadLetterListQuery extends DeadLetterFilter {
  readonly status?: DeadLetterStatus;
  readonly limit: number;
  readonly after?: DeadLetterCursor;
}

const ID = /^[1-9][0-9]{0,17}$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const LIST_PARAMETERS = new Set(['limit', 'cursor', 'topic', 'group', 'status']);
const FILTER_FIELDS = new Set(['topic', 'group']);

/** Whether `id` can name a dead letter at all (a row id); anything else is simply not found. */
export function isDeadLetterId(id: string): boolean {
  return ID.test(id);
}

export function encodeCursor(cursor: DeadLetterCursor): string {
  return Buffer.from(`${cursor.failedAt}/${cursor.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(text: string): DeadLetterCursor | undefined {
  const [failedAt, id, ...rest] = Buffer.from(text, 'base64url').toString('utf8').split('/');
  if (rest.length > 0 || failedAt === undefined || id === undefined || !TIMESTAMP.test(failedAt) || !isDeadLetterId(id)) return undefined;
  return { failedAt, id };
}

/** Reads `GET /admin/v1/dead-letters/{service}`'s query string; a wrong parameter is a 400 naming it. */
export function listQueryOf(query: Readonly<Record<string, unknown>>): DeadLetterListQuery {
  for (const name of Object.keys(query)) {
    if (!LIST_PARAMETERS.has(name)) invalid(`${name}: unknown parameter (use ${[...LIST_PARAMETERS].join(', ')})`);
  }
  const limitText = single(query, 'limit');
  let limit = DEAD_LETTER_PAGE_DEFAULT;
  if (limitText !== undefined) {
    limit = /^\d{1,4}$/.test(limitText) ? Number(limitText) : NaN;
    if (!(limit >= 1 && limit <= DEAD_LETTER_PAGE_MAX)) invalid(`limit: must be an integer from 1 to ${DEAD_LETTER_PAGE_MAX}`);
  }
  const cursorText = single(query, 'cursor');
  const after = cursorText === undefined ? undefined : decodeCursor(cursorText);
  if (cursorText !== undefined && after === undefined) invalid('cursor: not a cursor this list gave out');
  const status = single(query, 'status');
  if (status !== undefined && !(DEAD_LETTER_STATUSES as readonly string[]).includes(status)) {
    invalid(`status: must be one of ${DEAD_LETTER_STATUSES.join(', ')}`);
  }
  return { limit, after, topic: single(query, 'topic'), group: single(query, 'group'), status: status as DeadLetterStatus | undefined };
}

/** Reads the body of a bulk replay: a JSON object with optional `topic` and `group` strings (no body reads as `{}`: all). */
export function replayFilterOf(body: unknown): DeadLetterFilter {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    invalid('body: must be a JSON object such as {"topic": "...", "group": "..."}');
  const fields = body as Record<string, unknown>;
  for (const [name, value] of Object.entries(fields)) {
    if (!FILTER_FIELDS.has(name)) invalid(`${name}: unknown field (use topic, group)`);
    if (typeof value !== 'string' || value === '') invalid(`${name}: must be a non-empty string`);
  }
  return { topic: fields['topic'] as string | undefined, group: fields['group'] as string | undefined };
}

function single(query: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') invalid(`${name}: give it once`);
  if (value === '') invalid(`${name}: must not be empty`);
  return value;
}

function invalid(detail: string): never {
  throw new DomainError('invalid_request', detail);
}
