import { Type, type Static } from '@sinclair/typebox';
import { identifierSchema as identifier } from './input-limits';

/**
 * Rows of the bulk imports (`POST /import/{profiles,groups,events}`), sent as newline-delimited JSON
 * (one object per line), as CSV (a header line naming the fields, then one row per line) or as an
 * uploaded file of either form. Every row is judged on its own: a bad row is counted and kept with
 * its line number, field and reason in the job (`ingestions_failed`), the others are imported.
 */

const eitherRequired = (...names: string[]) => names.map((name) => ({ required: [name] }));

export const ProfileImportRowSchema = Type.Object(
  {
    user_id: Type.Optional(identifier('End-user identifier (or `userId`)')),
    userId: Type.Optional(identifier('End-user identifier (or `user_id`)')),
  },
  {
    $id: 'ProfileImportRow',
    additionalProperties: true,
    anyOf: eitherRequired('user_id', 'userId'),
    description: 'One user profile: `user_id` or `userId` identifies the user; every other field is a profile attribute.',
    examples: [{ user_id: 'u-1', plan: 'pro', seats: 12 }],
  },
);
export type ProfileImportRow = Static<typeof ProfileImportRowSchema>;

export const GroupImportRowSchema = Type.Object(
  {
    group_id: Type.Optional(identifier('Group identifier (or `groupId`)')),
    groupId: Type.Optional(identifier('Group identifier (or `group_id`)')),
  },
  {
    $id: 'GroupImportRow',
    additionalProperties: true,
    anyOf: eitherRequired('group_id', 'groupId'),
    description: 'One group profile: `group_id` or `groupId` identifies the group; every other field is a group profile attribute.',
    examples: [{ group_id: 'acme', industry: 'retail' }],
  },
);
export type GroupImportRow = Static<typeof GroupImportRowSchema>;

export const EventImportRowSchema = Type.Object(
  {
    user_id: Type.Optional(identifier('End user the event belongs to')),
    userId: Type.Optional(identifier('Same as `user_id`')),
    group_id: Type.Optional(identifier('Group the event applies to')),
    groupId: Type.Optional(identifier('Same as `group_id`')),
    name: Type.String({ minLength: 1, description: 'Event name' }),
    timestamp: Type.String({
      format: 'date-time',
      description:
        'ISO 8601 date-time with seconds and `Z` or an offset (`+HH:MM`, `-HH:MM`), in the years 1900 to 2299 (the range the ' +
        'event store holds); stored in UTC with milliseconds',
    }),
    attributes: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Free-form key/value data' })),
    context: Type.Optional(
      Type.Object({ url: Type.Optional(Type.String()) }, { additionalProperties: true, description: 'May hold `url`, the one key kept' }),
    ),
  },
  {
    $id: 'EventImportRow',
    additionalProperties: true,
    anyOf: eitherRequired('user_id', 'userId', 'group_id', 'groupId'),
    description:
      'One event: one of `user_id`, `userId`, `group_id`, `groupId`, plus `name` and `timestamp`; any other field is an ' +
      'event attribute (merged with `attributes`, which wins for a key given both ways). In CSV, `attributes.<key>` columns ' +
      'fill `attributes` and `context.url` the context. Events whose name the ingestion filtering rules drop are counted, ' +
      'not stored.',
    examples: [{ user_id: 'u-1', name: 'signup', timestamp: '2024-05-01T09:30:00Z', plan: 'pro' }],
  },
);
export type EventImportRow = Static<typeof EventImportRowSchema>;
