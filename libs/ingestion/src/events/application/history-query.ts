import {
  EVENT_HISTORY_DEFAULT_LIMIT,
  EVENT_HISTORY_MAX_LIMIT,
  TIME_ZONE_MAX_MINUTES,
  TIME_ZONE_OFFSET_PATTERN,
  timeZoneMinutes,
} from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-http';
import type { HistoryQuery } from './event-store.port';

const OFFSET = new RegExp(TIME_ZONE_OFFSET_PATTERN);
const WHOLE_NUMBER = /^[+-]?\d{1,6}$/;

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
 * `+HH:MM`, `-HH:MM` or whole minutes east of UTC. An unencoded `+` in a query string arrives as a
 * space (`time_zone=+05:30` reads ` 05:30`), so a leading space before an offset means `+`.
 */
function timeZoneOf(raw: unknown): number {
  if (raw === undefined) return 0;
  const text = singleValue('time_zone', raw);
  const offset = text.startsWith(' ') ? `+${text.slice(1)}` : text.trim();
  if (OFFSET.test(offset)) return timeZoneMinutes(offset);
  if (WHOLE_NUMBER.test(offset)) {
    const minutes = Number(offset);
    if (Math.abs(minutes) <= TIME_ZONE_MAX_MINUTES) return minutes;
  }
  throw invalid(
    'time_zone',
    `must be an offset from -14:00 to +14:00 as +HH:MM or -HH:MM, or whole minutes from -${TIME_ZONE_MAX_MINUTES} to ` +
      `${TIME_ZONE_MAX_MINUTES}, got ${JSON.stringify(text)}`,
  );
}

function singleValue(name: string, raw: unknown): string {
  if (typeof raw !== 'string') throw invalid(name, 'must be given once');
  return raw;
}

function invalid(name: string, reason: string): DomainError {
  return new DomainError('invalid_request', `${name}: ${reason}`);
}
