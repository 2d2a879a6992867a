import { UNZONED_DATE_TIME_PATTERN } from '@guidepost/contracts-http';
import type { OffsetAt } from './time-zone';

/** ISO 8601 date-time with seconds and a zone (`Z` or `±HH:MM`); the fields are checked separately. */
const ZONED_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * The instant a request names: an ISO 8601 date-time with `Z` or an offset, or whole milliseconds
 * since 1970. Undefined for anything else, including calendar dates that do not exist (`02-30`),
 * which `Date.parse` would roll over into the next month, and instants a `Date` cannot hold.
 */
export function instantOf(value: unknown): Date | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? validDate(new Date(value)) : undefined;
  if (typeof value !== 'string') return undefined;
  const match = ZONED_DATE_TIME.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return undefined;
  return validDate(new Date(value));
}

/** A calendar day, and a date-time with seconds but no zone (`2026-11-27`, `2026-11-27T09:30:00.250`). */
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const UNZONED_DATE_TIME = new RegExp(UNZONED_DATE_TIME_PATTERN);
const MINUTE_MS = 60 * 1000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/**
 * The bound of a range a request names (`start_time` or `end_time` of an export or an analytics
 * query): what `instantOf` reads, or a date-time without a zone read as the wall-clock time of `zone`,
 * or a calendar day there. A day starts a range at its first instant and ends one at the first
 * instant of the next day, so that `end_time: "2026-11-30"` includes the 30th (23 or 25 hours long
 * where the zone changes its clocks that day). Undefined for anything else.
 */
export function rangeBoundOf(value: unknown, zone: OffsetAt, bound: 'start' | 'end'): Date | undefined {
  if (typeof value !== 'string') return instantOf(value);
  if (DATE.test(value)) {
    const midnight = instantOf(`${value}T00:00:00Z`);
    return midnight && wallClockIn(zone, bound === 'end' ? new Date(midnight.getTime() + DAY_MS) : midnight);
  }
  if (!UNZONED_DATE_TIME.test(value)) return instantOf(value);
  const wallClock = instantOf(`${value}Z`);
  return wallClock && wallClockIn(zone, wallClock);
}

/**
 * The instant at which the zone's clocks show `wallClock` (given as that time in UTC). The offset is
 * read where the wall-clock time falls, then again at the instant found, which differs only across a
 * change of the zone's clocks.
 */
function wallClockIn(zone: OffsetAt, wallClock: Date): Date {
  const guess = new Date(wallClock.getTime() - zone(wallClock) * MINUTE_MS);
  return new Date(wallClock.getTime() - zone(guess) * MINUTE_MS);
}

function validDate(date: Date): Date | undefined {
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * An instant as ClickHouse reads a `DateTime64(3, 'UTC')` parameter (`2024-05-01 09:30:00.123`). The
 * client would send a `Date` as whole seconds, dropping the milliseconds.
 */
export function dateTime64Param(instant: Date): string {
  return instant.toISOString().replace('T', ' ').replace('Z', '');
}
