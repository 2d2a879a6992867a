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
