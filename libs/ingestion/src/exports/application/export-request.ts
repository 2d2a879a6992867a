import { Type } from '@sinclair/typebox';
import type { EventExportRequested, PayloadOf } from '@guidepost/contracts-events';
import { EXPORT_MAX_EVENTS, type EventExportRequest, EventExportRequestSchema, timeZoneMinutes } from '@guidepost/contracts-http';
import { compileValidator, DomainError } from '@guidepost/platform-http';
import { instantField } from '../../events/application/instant-field';

export type ExportRequestedPayload = PayloadOf<typeof EventExportRequested>;
/** A request whose fields are valid; its conditions are checked by `compileExportConditions`. */
export type ExportRequestFields = Omit<EventExportRequest, 'conditions'> & { readonly conditions: unknown[] };
/** What the request asks for; the announcement adds the account, the job and the time of the request. */
export type ResolvedExportRequest = Omit<ExportRequestedPayload, 'accountId' | 'jobId' | 'requestedAt'>;

const instant = Type.Union([Type.String(), Type.Integer({ minimum: 0 })]);

/**
 * An export request's body, checked against `EventExportRequestSchema` with the conditions taken as
 * any list and the instants as any text or number: `compileExportConditions` and
 * `resolveExportRequest` then name the part at fault (`conditions[1][1]: operator ">" is not
 * supported...`, `start_time: must be an ISO 8601 date-time with...`) where the schema could only say
 * that a value matches none of its forms. Throws a 400 naming the field at fault.
 */
export const parseExportRequest: (body: unknown) => ExportRequestFields = compileValidator(
  Type.Object(
    { ...EventExportRequestSchema.properties, conditions: Type.Array(Type.Unknown()), start_time: instant, end_time: Type.Optional(instant) },
    { additionalProperties: false },
  ),
);

/**
 * A validated export request, resolved to what the worker reads: instants, a limit (the largest when
 * none was asked), the offset and the addresses to mail. The range must not end before it starts.
 */
export function resolveExportRequest(request: ExportRequestFields): ResolvedExportRequest {
  const startTime = instantField('start_time', request.start_time, 'iso or milliseconds');
  const endTime = request.end_time === undefined ? undefined : instantField('end_time', request.end_time, 'iso or milliseconds');
  if (endTime !== undefined && endTime < startTime) {
    throw new DomainError('invalid_request', `end_time: must not be before start_time (${startTime} > ${endTime})`);
  }
  return {
    format: request.format,
    conditions: request.conditions,
    startTime,
    ...(endTime === undefined ? {} : { endTime }),
    timeZoneMinutes: timeZoneMinutes(request.time_zone),
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
