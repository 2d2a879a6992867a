import { DomainError } from '@guidepost/platform-errors';
import { instantOf, rangeBoundOf } from '../domain/instant';
import type { OffsetAt } from '../domain/time-zone';
import { unstorableInstantReason } from '../domain/storable-event';

const ISO = 'an ISO 8601 date-time with seconds and Z or an offset (+HH:MM, -HH:MM)';
const rangeBoundForms = (zoneField: string) =>
  `an ISO 8601 date-time with seconds, with Z or an offset (+HH:MM, -HH:MM) or without one (read in ${zoneField}), ` +
  `a date YYYY-MM-DD (a whole day in ${zoneField}), or milliseconds since 1970`;

/**
 * The instant a request field names; a 400 naming the field and the forms it takes otherwise. Schemas
 * take these fields as any text (or number) and leave the check here, where the detail can say more
 * than "must match format date-time": a zone is required, and a well-formed date-time that names no
 * instant (a leap second, `02-30`) is refused before acceptance.
 */
export function instantField(field: string, value: string | number): Date {
  const instant = instantOf(value);
  if (instant === undefined) throw invalid(field, `must be ${ISO}, got ${JSON.stringify(value)}`);
  return instant;
}

/**
 * The bound of a request's range (`rangeBoundOf`: a date or a date-time without a zone is read in
 * `zone`, the request's `zoneField`); a 400 naming the field and the forms it takes otherwise.
 */
export function rangeBoundField(
  field: string,
  value: string | number,
  zone: { readonly field: string; readonly offsetAt: OffsetAt },
  bound: 'start' | 'end',
): Date {
  const instant = rangeBoundOf(value, zone.offsetAt, bound);
  if (instant === undefined) throw invalid(field, `must be ${rangeBoundForms(zone.field)}, got ${JSON.stringify(value)}`);
  return instant;
}

/**
 * The `timestamp` of an event taken in, as ISO 8601 in UTC with milliseconds: an instant the event
 * store holds, or a 400 naming the field. Refused here, before the answer, because the event store
 * would otherwise drop (or misread) it after the event was acknowledged.
 */
export function eventTimestampField(value: string): string {
  const instant = instantField('timestamp', value);
  const unstorable = unstorableInstantReason(instant);
  if (unstorable !== undefined) throw invalid('timestamp', `${unstorable}, got ${JSON.stringify(value)}`);
  return instant.toISOString();
}

function invalid(field: string, reason: string): DomainError {
  return new DomainError('invalid_request', `${field}: ${reason}`);
}
