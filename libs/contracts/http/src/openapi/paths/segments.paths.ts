import { UserIdListSchema } from '../../schemas/profiles.schema';
import {
  SegmentCreateSchema,
  SegmentMembershipExportRequestSchema,
  SegmentSchema,
  SegmentUpdateSchema,
} from '../../schemas/segment.schema';
import {
  ACCOUNT_PATH,
  asyncAcknowledgementResponse,
  jsonBody,
  listResponse,
  objectResponse,
  operation,
  statusAcknowledgementResponse,
  userIdsBody,
  type PathItems,
} from '../openapi-builders';

/** Segments and their membership (owned by the segment service). */

const SEGMENTS = `${ACCOUNT_PATH}/segments`;
const SEGMENT = `${SEGMENTS}/{segment_id}`;
const TAG = 'Segments';
const JSON_ONLY = 'JSON only (other content types get 415).';
const MEMBERSHIP_NOTE =
  'Repeating an id, or the whole request, is harmless. Changes can take a few minutes to take effect; `job_url` reports ' + 'their status.';

export function segmentPaths(): PathItems {
  return {
    [SEGMENTS]: {
      get: operation({
        operationId: 'listSegments',
        tag: TAG,
        summary: 'List segments',
        description: 'Every segment of the account. Unknown query parameters (such as `page` or `limit`) are ignored.',
        responses: { 200: listResponse('The segments', SegmentSchema) },
      }),
      post: operation({
        operationId: 'createSegment',
        tag: TAG,
        summary: 'Create a segment',
        requestBody: jsonBody(SegmentCreateSchema, `The new segment. ${JSON_ONLY}`),
        responses: { 201: objectResponse('The created segment', SegmentSchema) },
        errors: [400, 413, 415],
      }),
    },
    [SEGMENT]: {
      get: operation({
        operationId: 'getSegment',
        tag: TAG,
        summary: 'Get a segment',
        pathParameters: ['segment_id'],
        responses: { 200: objectResponse('The segment', SegmentSchema) },
        errors: [400, 404],
      }),
      patch: operation({
        operationId: 'updateSegment',
        tag: TAG,
        summary: 'Update a segment',
        pathParameters: ['segment_id'],
        requestBody: jsonBody(SegmentUpdateSchema, `The fields to change. ${JSON_ONLY}`),
        responses: { 200: objectResponse('The updated segment; `updated_at` has changed', SegmentSchema) },
        errors: [400, 404, 413, 415],
      }),
      delete: operation({
        operationId: 'deleteSegment',
        tag: TAG,
        summary: 'Delete a segment',
        description: 'Removes the segment and its membership permanently.',
        pathParameters: ['segment_id'],
        responses: { 200: statusAcknowledgementResponse('Deleted') },
        errors: [400, 404],
      }),
    },
    [`${SEGMENT}/add_user_ids`]: {
      post: operation({
        operationId: 'addSegmentUserIds',
        tag: TAG,
        summary: 'Add users to a segment',
        description: `Added users are members in addition to the users added before. ${MEMBERSHIP_NOTE}`,
        pathParameters: ['segment_id'],
        requestBody: userIdsBody(UserIdListSchema),
        responses: { 202: asyncAcknowledgementResponse('Accepted; the users are added offline.') },
        errors: [400, 404, 413, 415],
      }),
    },
    [`${SEGMENT}/remove_user_ids`]: {
      post: operation({
        operationId: 'removeSegmentUserIds',
        tag: TAG,
        summary: 'Remove users from a segment',
        description: `Removes ids previously added with add_user_ids. ${MEMBERSHIP_NOTE}`,
        pathParameters: ['segment_id'],
        requestBody: userIdsBody(UserIdListSchema),
        responses: { 202: asyncAcknowledgementResponse('Accepted; the users are removed offline.') },
        errors: [400, 404, 413, 415],
      }),
    },
    [`${SEGMENT}/segment_membership_export`]: {
      post: operation({
        operationId: 'exportSegmentMembership',
        tag: TAG,
        summary: 'Export the members of a segment',
        description:
          'Writes the members (with the requested profile properties) to a file. When done, the `Completed` job event ' +
          'carries `signed_s3_url` (the link, valid one week), `expires_at` and the row count; the link is mailed only when ' +
          `\`email\` is given. ${JSON_ONLY}`,
        pathParameters: ['segment_id'],
        requestBody: jsonBody(SegmentMembershipExportRequestSchema, 'What to export'),
        responses: { 202: asyncAcknowledgementResponse('Accepted; the export runs offline.') },
        errors: [400, 404, 413, 415],
      }),
    },
  };
}
