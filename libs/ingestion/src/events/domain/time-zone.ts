import { TIME_ZONE_FORMS, TIME_ZONE_MAX_MINUTES, TIME_ZONE_MINUTES_PATTERN, TIME_ZONE_OFFSET_PATTERN } from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';

const OFFSET = new RegExp(TIME_ZONE_OFFSET_PATTERN);
const MINUTES = new RegExp(TIME_ZONE_MINUTES_PATTERN);

/**
 * Minutes east of UTC of a `time_zone`, history's and export's alike (one grammar, `TIME_ZONE_FORMS`):
 * `+HH:MM` or `-HH:MM` from -14:00 to +14:00 (`HH:MM` without a sign, as scripts send `00:00`, is
 * `+HH:MM`), or whole minutes from -840 to 840, as a JSON number or
 * as its text (a query string carries nothing else). Anything else is a 400 naming `time_zone`,
 * including `+0530`, which is not 530 minutes but an ISO 8601 basic offset this grammar does not take.
 */
export function timeZoneMinutesOf(value: unknown): number {
  const minutes = minutesOf(value);
  if (minutes === undefined || Math.abs(minutes) > TIME_ZONE_MAX_MINUTES) {
    throw new DomainError('invalid_request', `time_zone: must be ${TIME_ZONE_FORMS}, got ${JSON.stringify(value) ?? String(value)}`);
  }
  // `-0` (a JSON number) is UTC like 0.
  return minutes + 0;
}

function minutesOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  if (OFFSET.test(value)) {
    const sign = value.startsWith('-') ? -1 : 1;
    const [hours, minutes] = value.replace(/^[+-]/, '').split(':');
    return sign * (Number(hours) * 60 + Number(minutes));
  }
  return MINUTES.test(value) ? Number(value) : undefined;
}

/** A time zone as a range bound reads it: its offset from UTC (minutes east) at each instant. */
export type OffsetAt = (instant: Date) => number;

/** A zone at one offset all year (a `time_zone` of history and exports). */
export function fixedOffset(minutes: number): OffsetAt {
  return () => minutes;
}

/** What an IANA zone name looks like (`UTC`, `America/New_York`, `Etc/GMT+5`): no offsets like `+05:00`, which ClickHouse refuses. */
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/**
 * The offsets of an IANA time zone (`America/New_York`), from the runtime's time zone data; undefined
 * when the runtime does not know the name. The offset is read from the zone's `GMT-04:00` rendering.
 */
export function ianaZone(name: string): OffsetAt | undefined {
  if (!IANA_NAME.test(name)) return undefined;
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', { timeZone: name, timeZoneName: 'longOffset' });
  } catch {
    return undefined;
  }
  return (instant) => {
    const rendered = format.formatToParts(instant).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
    const [, sign, hours, minutes] = /^GMT([+-])(\d{2}):(\d{2})$/.exec(rendered) ?? [];
    return sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
  };
}

/**
 * How a rendered timestamp names its offset: `Z` at 0, else `+HH:MM` / `-HH:MM` (minutes east of UTC).
 * The event store appends it to the instant shifted by the same offset, for history and exports alike.
 */
export function zoneDesignator(timeZoneMinutes: number): string {
  if (timeZoneMinutes === 0) return 'Z';
  const sign = timeZoneMinutes < 0 ? '-' : '+';
  const minutes = Math.abs(timeZoneMinutes);
  return `${sign}${twoDigits(Math.floor(minutes / 60))}:${twoDigits(minutes % 60)}`;
}

function twoDigits(value: number): string {
  return String(value).padStart(2, '0');
}
