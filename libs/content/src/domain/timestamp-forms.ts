/**
 * The timestamp forms of the public records (docs/api-contract.md#records-and-timestamp-forms). One function per form, so that every
 * record of a kind renders its times the same way.
 */

/** Flows: `YYYY-MM-DDTHH:MM:SSZ`, seconds precision, UTC. */
export function flowTimestamp(time: Date): string {
  return `${time.toISOString().slice(0, 19)}Z`;
}

/** Every experience kind (pins, mobile experiences and their steps, launchpads, checklists, ...): milliseconds since 1970. */
export function epochMillis(time: Date): number {
  return time.getTime();
}

/** Tags (and filtering rules): ISO 8601 with milliseconds and `Z`. */
export function isoTimestamp(time: Date): string {
  return time.toISOString();
}

/** An admin input time: an ISO 8601 date-time (already format-checked) or milliseconds since 1970. */
export function timeOfInput(value: string | number): Date {
  return new Date(value);
}
