import type { ExperienceTimestampForm } from '@guidepost/contracts-http';

/**
 * The timestamp forms of the public records (docs/api-contract.md#records-and-timestamp-forms). One function per form, so that every
 * record of a kind renders its times the same way.
 */

/** Flows: `YYYY-MM-DDTHH:MM:SSZ`, seconds precision, UTC. */
export function flowTimestamp(time: Date): string {
  return `${time.toISOString().slice(0, 19)}Z`;
}

/** Pins, mobile experiences and their steps: milliseconds since 1970. */
export function epochMillis(time: Date): number {
  return time.getTime();
}

/** Tags (and filtering rules): ISO 8601 with milliseconds and `Z`. */
export function isoTimestamp(time: Date): string {
  return time.toISOString();
}

/** A time of an experience kind, in the form the kind's clients parse. */
export function experienceTimestamp(form: ExperienceTimestampForm, time: Date): number | string {
  return form === 'epoch-millis' ? epochMillis(time) : isoTimestamp(time);
}

/** An admin input time: an ISO 8601 date-time (already format-checked) or milliseconds since 1970. */
export function timeOfInput(value: string | number): Date {
  return new Date(value);
}
