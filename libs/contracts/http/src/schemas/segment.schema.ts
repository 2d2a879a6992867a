import { Type, type Static } from '@sinclair/typebox';
import { CSV_FORMULA_RULE } from './common.schema';

/**
 * Segments and their membership operations as the public API takes and returns them. Segment
 * timestamps are ISO 8601 with milliseconds and `Z` (docs/api-contract.md#records-and-timestamp-forms).
 */

const ISO_MILLIS_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';
const isoMillis = (description: string) =>
  Type.String({ pattern: ISO_MILLIS_PATTERN, description, examples: ['2024-05-01T09:30:00.123Z'] });

/** Who created or last changed a segment. The calling API key is not known behind the gateway. */
const actor = (description: string) =>
  Type.String({
    description: `${description}: always \`api\` for segments written through this API (the calling key is not recorded)`,
    examples: ['api'],
  });

export const SegmentSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[0-9a-f]{24}$', description: 'Segment identifier (24 hexadecimal characters)' }),
    name: Type.String({ minLength: 1, description: 'Segment name' }),
    description: Type.String({ description: 'Segment description; empty when none was given' }),
    created_at: isoMillis('Creation time, with milliseconds and `Z`'),
    updated_at: isoMillis('Last update time, with milliseconds and `Z`; changes on every update'),
    created_by: actor('Creator identifier'),
    updated_by: actor('Last updater identifier'),
    url: Type.String({ format: 'uri', description: 'Absolute URL of this segment' }),
  },
  {
    $id: 'Segment',
    additionalProperties: false,
    description: 'A user segment. Its membership is the set of user ids added to it (and not removed since).',
  },
);
export type Segment = Static<typeof SegmentSchema>;

const segmentName = Type.String({ minLength: 1, description: 'Segment name (not empty)' });
const segmentDescription = Type.String({ description: 'Segment description' });

export const SegmentCreateSchema = Type.Object(
  { name: segmentName, description: Type.Optional(segmentDescription) },
  { $id: 'SegmentCreate', description: 'Body of `POST /segments` (JSON only)' },
);
export type SegmentCreate = Static<typeof SegmentCreateSchema>;

export const SegmentUpdateSchema = Type.Object(
  { name: Type.Optional(segmentName), description: Type.Optional(segmentDescription) },
  {
    $id: 'SegmentUpdate',
    anyOf: [{ required: ['name'] }, { required: ['description'] }],
    description: 'Body of `PATCH /segments/{segment_id}` (JSON only): the fields to change, at least one',
  },
);
export type SegmentUpdate = Static<typeof SegmentUpdateSchema>;

export const SEGMENT_EXPORT_FORMATS = ['csv', 'json'] as const;
/** Columns of a membership export besides `user_id`: as many as one profile update may write. */
export const SEGMENT_EXPORT_MAX_PROPERTY_NAMES = 1_000;
export type SegmentExportFormat = (typeof SEGMENT_EXPORT_FORMATS)[number];

export const SegmentMembershipExportRequestSchema = Type.Object(
  {
    property_names: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        maxItems: SEGMENT_EXPORT_MAX_PROPERTY_NAMES,
        description:
          'User properties to include beside `user_id` (always the first column); when omitted or empty only `user_id` ' +
          `is written. A member without a property gets null (an empty CSV cell). At most ${SEGMENT_EXPORT_MAX_PROPERTY_NAMES} ` +
          'names, none empty or holding NUL (`\\u0000`) or a lone UTF-16 surrogate (400 naming it, e.g. `property_names[3]`).',
      }),
    ),
    format: Type.Optional(
      Type.Union(
        SEGMENT_EXPORT_FORMATS.map((format) => Type.Literal(format)),
        {
          default: 'json',
          description:
            '`json`: newline-delimited JSON, one object per member; `csv`: a header line `user_id,<property_names...>` ' +
            `then one row per member. Members are ordered by \`user_id\`. ${CSV_FORMULA_RULE}`,
        },
      ),
    ),
    email: Type.Optional(
      Type.String({
        format: 'email',
        description: 'Address that receives the link to the export when it is done (the link is also in the job detail)',
      }),
    ),
  },
  {
    $id: 'SegmentMembershipExportRequest',
    description:
      'Body of `POST /segments/{segment_id}/segment_membership_export`. The finished job carries the link to the file ' +
      'in its `Completed` event (`signed_s3_url`, valid one week, `expires_at`, `rows`).',
  },
);
export type SegmentMembershipExportRequest = Static<typeof SegmentMembershipExportRequestSchema>;
