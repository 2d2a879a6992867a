import { EVENT_HISTORY_DEFAULT_LIMIT, EVENT_HISTORY_MAX_LIMIT } from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';
import { timeZoneMinutesOf } from '../domain/time-zone';
import type { HistoryQuery } from './event-store.port';

/**
 * Event history's query, as it arrives (text; a repeated parameter as an array). Unknown parameters
 * are ignored; `limit` and `time_zone` outside their forms are a 400 naming the parameter.
 */
export function historyQueryOf(accountId: string, userId: string, query: Readonly<Record<string, unknown>>): HistoryQuery {
  return { accountId, userId, limit: limitOf(query['limit']), timeZoneMinutes: timeZoneOf(query['time_zone']) };
}

function limitOf(raw: unknown): number {
  if (raw === undefined) return EVENT_HISTORY_DEFAULT_LIMIT;
  const text = singleValue('limit', raw).trim();
  const limit = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
  if (!(limit >= 1 && limit <= EVENT_HISTORY_MAX_LIMIT)) {
    throw invalid('limit', `must be a whole number from 1 to ${EVENT_HISTORY_MAX_LIMIT}, got ${JSON.stringify(text)}`);
  }
  return limit;
}

/**
 * The export's grammar (`timeZoneMinutesOf`), read from text. An unencoded `+` in a query string
 * arrives as a space (`time_zone=+05:30` reads ` 05:30`), so a leading space means `+`.
 */
function timeZoneOf(raw: unknown): number {
  if (raw === undefined) return 0;
  const text = singleValue('time_zone', raw);
  return timeZoneMinutesOf(text.startsWith(' ') ? `+${text.slice(1)}` : text);
}

function singleValue(name: string, raw: unknown): string {
  if (typeof raw !== 'string') throw invalid(name, 'must be given once');
  return raw;
}

function invalid(name: string, reason: string): DomainError {
  return new DomainError('invalid_request', `${name}: ${reason}`);
}
