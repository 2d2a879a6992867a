import type { RecordedEvent } from '@guidepost/contracts-events';

/**
 * The instants the event store holds: the documented range of ClickHouse's `DateTime64`, from 1900
 * to the end of 2299. Outside it ClickHouse misreads some values (year 0000 becomes this year) and
 * refuses others (`+010000-...`). Every intake (track, the event import) refuses events outside it
 * with `unstorableInstantReason`; events the service records itself carry the current time.
 */
export const EARLIEST_STORABLE_INSTANT = new Date('1900-01-01T00:00:00.000Z');
export const END_OF_STORABLE_INSTANTS = new Date('2300-01-01T00:00:00.000Z');

export function isStorableInstant(instant: Date): boolean {
  const time = instant.getTime();
  return time >= EARLIEST_STORABLE_INSTANT.getTime() && time < END_OF_STORABLE_INSTANTS.getTime();
}

/** Why the event store cannot hold an event at this instant, or undefined when it can: what intake says. */
export function unstorableInstantReason(instant: Date): string | undefined {
  if (isStorableInstant(instant)) return undefined;
  return 'must be in the years 1900 to 2299, the range the event store holds';
}

/**
 * The same instant moved into the storable range: a bound of an export's range outside it selects the
 * same events (there are none outside), and ClickHouse reads a bound inside it exactly.
 */
export function withinStorableRange(instant: Date): Date {
  if (instant < EARLIEST_STORABLE_INSTANT) return EARLIEST_STORABLE_INSTANT;
  if (instant > END_OF_STORABLE_INSTANTS) return END_OF_STORABLE_INSTANTS;
  return instant;
}

/**
 * Why the event store cannot hold this event, or undefined when it can. The sink checks even though
 * intake refuses such events, so validated data never gets here: one unreadable row would fail a whole
 * insert, and with it every event of the batch, again at each redelivery.
 */
export function unstorableReason(event: RecordedEvent): string | undefined {
  if (!isStorableInstant(new Date(event.timestamp))) return `timestamp ${event.timestamp} is outside the years 1900 to 2299`;
  return undefined;
}
