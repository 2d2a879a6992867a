import { Type } from '@sinclair/typebox';
import { LinkBaseUrlField } from './link-base-url';
import { defineTopic } from './topic';

/**
 * One chunk of user ids submitted to a segment (add or remove). The ids themselves are staged in the
 * segment service's own tables in the transaction that accepts the request, so a message stays small
 * whatever the size of the upload and the producer never holds more than one chunk in memory; the
 * message says which chunk of which job to apply. The job completes when its last chunk applies.
 */
export const SegmentUserIdsSubmitted = defineTopic(
  'guidepost.segments.user-ids-submitted.v1',
  'segment id',
  Type.Object({
    accountId: Type.String(),
    segmentId: Type.String(),
    jobId: Type.String(),
    operation: Type.Union([Type.Literal('add'), Type.Literal('remove')]),
    chunkIndex: Type.Integer({ minimum: 0 }),
    chunkCount: Type.Integer({ minimum: 1 }),
    submittedAt: Type.String({ format: 'date-time' }),
  }),
);

/** A request to export a segment's membership, with the user properties to include. */
export const SegmentMembershipExportRequested = defineTopic(
  'guidepost.segments.membership-export-requested.v1',
  'segment id',
  Type.Object({
    accountId: Type.String(),
    segmentId: Type.String(),
    jobId: Type.String(),
    format: Type.Union([Type.Literal('csv'), Type.Literal('json')]),
    propertyNames: Type.Array(Type.String()),
    email: Type.Optional(Type.String()),
    requestedAt: Type.String({ format: 'date-time' }),
    linkBaseUrl: LinkBaseUrlField,
  }),
);
