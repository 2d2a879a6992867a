import { Type } from '@sinclair/typebox';
import type { EventExportRequested, PayloadOf } from '@guidepost/contracts-events';
import { EXPORT_MAX_EVENTS, type EventExportRequest, EventExportRequestSchema } from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';
import { compileValidator } from '@guidepost/platform-http';
import { rangeBoundField } from '../../events/application/instant-field';
import { withinStorableRange } from '../../events/domain/storable-event';
import { fixedOffset, timeZoneMinutesOf } from '../../events/domain/time-zone';

export type ExportRequestedPayload = PayloadOf<typeof EventExportRequested>;
/** A request whose fields are valid; its conditions are checked by `compileExportConditions`. */
export type ExportRequestFields = Omit<EventExportRequest, 'conditions'> & { readonly conditions: unknown[] };
/** What the request asks for; the announcement adds the account, the job and the time of the request. */
export type ResolvedExportRequest = Omit<ExportRequestedPayload, 'accountId' | 'jobId' | 'requestedAt' | 'linkBaseUrl'>;

const instant = Type.Union([Type.String(), Type.Integer({ minimum: 0 })]);
const textOrNumber = Type.Union([Type.String(), Type.Number()]);

/**
 * An export request's body, checked against `EventExportRequestSchema` with the conditions taken as
 * any list, the instants and the time zone as any text or number: `compileExportConditions` and
 * `resolveExportRequest` then name the part at fault (`conditions[1][1]: operator ">" is not
 * supported...`, `start_time: must be an ISO 8601 date-time with...`, `time_zone: must be an offset...`)
 * where the schema could only say that a value matches none of its forms. `limit` and `offset` are
 * bounded by the schema itself (safe integers), so the worker never meets one it cannot pass on.
 * Throws a 400 naming the field at fault.
 */
export const parseExportRequest: (body: unknown) => ExportRequestFields = compileValidator(
  Type.Object({
    ...EventExportRequestSchema.properties,
    conditions: Type.Array(Type.Unknown()),
    start_time: instant,
    end_time: Type.Optional(instant),
    time_zone: Type.Optional(textOrNumber),
  }),
);

/**
 * A validated export request, resolved to what the worker reads: instants (a date or a date-time
 * without a zone read in the request's `time_zone`), a limit (the largest when none was asked), the
 * offset and the addresses to mail. The range must not end before it starts. Its
 * bounds are then moved into the years the event store holds (`withinStorableRange`): that selects
 * the same events, and the store would misread some instants outside (year 0000 as this year).
 */
export function resolveExportRequest(request: ExportRequestFields): ResolvedExportRequest {
  const timeZoneMinutes = request.time_zone === undefined ? 0 : timeZoneMinutesOf(request.time_zone);
  const zone = { field: 'time_zone', offsetAt: fixedOffset(timeZoneMinutes) };
  const start = rangeBoundField('start_time', request.start_time, zone, 'start');
  const end = request.end_time === undefined ? undefined : rangeBoundField('end_time', request.end_time, zone, 'end');
  if (end !== undefined && end < start) {
    throw new DomainError('invalid_request', `end_time: must not be before start_time (${start.toISOString()} > ${end.toISOString()})`);
  }
  return {
    format: request.format,
    conditions: request.conditions,
    startTime: withinStorableRange(start).toISOString(),
    ...(end === undefined ? {} : { endTime: withinStorableRange(end).toISOString() }),
    timeZoneMinutes,
    limit: request.limit ?? EXPORT_MAX_EVENTS,
    offset: request.offset ?? 0,
    emails: addressesOf(request.email),
  };
}

/** Each address once, in the order given. */
function addressesOf(email: string | string[] | undefined): string[] {
  if (email === undefined) return [];
  return [...new Set(typeof email === 'string' ? [email] : email)];
}
