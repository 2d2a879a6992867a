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
