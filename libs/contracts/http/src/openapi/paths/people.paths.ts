import type { TSchema } from '@sinclair/typebox';
import {
  EVENT_HISTORY_DEFAULT_LIMIT,
  EVENT_HISTORY_MAX_LIMIT,
  EventHistoryQuerySchema,
  EventSchema,
  TrackEventSchema,
  TIME_ZONE_FORMS,
} from '../../schemas/events.schema';
import { ID_MAX_LENGTH } from '../../schemas/input-limits';
import {
  PROFILE_UPDATE_MAX_PROPERTIES,
  GroupProfileSchema,
  GroupProfileUpdateSchema,
  UserIdListSchema,
  UserProfileSchema,
  UserProfileUpdateSchema,
} from '../../schemas/profiles.schema';
import { ref, type JsonObject, type SchemaComponents } from '../schema-components';
import {
  ACCOUNT_PATH,
  asyncAcknowledgementResponse,
  CSV_TYPE,
  JSON_TYPE,
  jsonBody,
  listResponse,
  objectResponse,
  operation,
  statusAcknowledgementResponse,
  userIdsBody,
  type CsvForm,
  type PathItems,
} from '../openapi-builders';

/** End users (profiles and events) and groups (profiles and their users). */

const USER = `${ACCOUNT_PATH}/users/{user_id}`;
const GROUP = `${ACCOUNT_PATH}/groups/{group_id}`;
const PROFILE_CSV: CsvForm = { columns: [], note: 'The columns are the keys of the profile.' };

/** The CSV cell typing every CSV intake shares (profile updates here, bulk imports too). */
const CSV_CELL_TYPING =
  'Cells are typed: `true` and `false` become booleans; a cell in JSON number syntax (`-12`, `3.5`, `1e3`; no leading ' +
  'zeros, so `007` stays text) becomes a number; an empty cell means the property is absent (left as it is); anything ' +
  'else is text. The columns `user_id`, `userId`, `group_id`, `groupId`, `name`, `timestamp` and `context.url` always ' +
  'stay text.';

/** Profile data as a JSON object or as CSV (a header line naming the properties, then exactly one row). */
function profileBody(schema: TSchema, what: string): JsonObject {
  return {
    required: true,
    description: `${what}, as a JSON object or as CSV (a header line naming the properties, then exactly one row of values).`,
    content: {
      [JSON_TYPE]: { schema: ref(schema) },
      [CSV_TYPE]: {
        schema: { type: 'string', description: `A header line naming the properties, then one row of values. ${CSV_CELL_TYPING}` },
        example: 'plan,seats,beta\npro,12,true\n',
      },
    },
  };
}

const PROFILE_MERGE =
  'Every property of the body is set to its value (nested objects and arrays are replaced whole); the other properties of ' +
  "the profile are kept, and a profile that does not exist yet is created. Properties that the account's ingestion " +
  'filtering rules drop are not stored (they are counted, not lost without a trace). The update is committed before the ' +
  'answer, so it is usable for targeting and personalization at once. A body that is not a JSON object, or CSV that is ' +
  'not one header line plus one row, is answered with 400 naming the body or the line; so is an update of more than ' +
  `${PROFILE_UPDATE_MAX_PROPERTIES} properties (naming the limit), and a property with an empty name, or whose name or ` +
  'value holds NUL or a lone UTF-16 surrogate (naming the property).';
const EVENT_CSV: CsvForm = {
  columns: ['user_id', 'name', 'timestamp'],
  note:
    'The `attributes` object is flattened into `attributes.<key>` columns after these (the union of keys, sorted); an ' +
    'empty history is an empty document.',
};

/** Query parameters of event history, from its schema (query values arrive as text). */
function historyQuery(schemas: SchemaComponents): JsonObject[] {
  return Object.entries(EventHistoryQuerySchema.properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    description: schema.description,
    schema: schemas.inline(schema),
  }));
}

function associateUsers(method: 'PATCH' | 'POST'): JsonObject {
  return operation({
    operationId: method === 'PATCH' ? 'associateGroupUsers' : 'associateGroupUsersWithPost',
    tag: 'Groups',
    summary: method === 'PATCH' ? 'Associate users with a group' : 'Associate users with a group (POST form)',
    description:
      'Sets the group of each user: one synchronous profile update per user, done when the answer arrives. The association ' +
      'is recorded as the user-profile property `group_id` (set to the group id; profiles that do not exist yet are ' +
      'created), so a user belongs to one group at a time and the last association wins. Each user records an internal ' +
      '`svc:profile_update` event with attributes `{"group_id": "<group id>"}` (unless the event-name filtering rules drop ' +
      'it). The association itself is not subject to the user-property filtering rules. All users are associated in one transaction: a bad line is answered with 400 ' +
      `naming it and associates nobody; each id has 1 to ${ID_MAX_LENGTH} characters (a bad one is named by its index, ` +
      '`user_ids[3]`, or its line). The group needs no profile. Some clients send this as PATCH, others as POST: ' +
      'both are accepted and behave the same.',
    pathParameters: ['group_id'],
    requestBody: userIdsBody(UserIdListSchema),
    responses: { 200: statusAcknowledgementResponse('Every user is associated') },
    errors: [400, 413, 415],
  });
}

export function peoplePaths(schemas: SchemaComponents): PathItems {
  return {
    [`${USER}/profile`]: {
      get: operation({
        operationId: 'getUserProfile',
        tag: 'Users',
        summary: "Get a user's profile",
        description: 'The complete profile, property values with their JSON types. A user without a profile is answered with 404.',
        pathParameters: ['user_id'],
        responses: { 200: objectResponse('The complete profile as a key/value object', UserProfileSchema, PROFILE_CSV) },
        errors: [400, 404],
      }),
      patch: operation({
        operationId: 'updateUserProfile',
        tag: 'Users',
        summary: "Update a user's profile",
        description:
          `The whole body is key/value profile data. ${PROFILE_MERGE} The properties written (after filtering) are recorded ` +
          'as an internal `svc:profile_update` event of the user (none when the rules leave nothing to write, or drop that ' +
          'event name).',
        pathParameters: ['user_id'],
        requestBody: profileBody(UserProfileUpdateSchema, 'Profile data'),
        responses: { 200: statusAcknowledgementResponse('Updated') },
        errors: [400, 413, 415],
      }),
      delete: operation({
        operationId: 'deleteUserProfile',
        tag: 'Users',
        summary: "Delete a user's profile",
        description:
          'Removes the profile permanently, including every property used for targeting and personalization; resets ' +
          'checklist completion and allows retesting of once-only flows and dismissed banners. Activity in analytics and ' +
          'reporting is kept. The spec shows this answer both as 200 and as 202; it is 202 with a job (the deletion runs ' +
          'offline). The job completes right after it is created, its `Completed` event carrying `deleted` (`true`, or ' +
          '`false` when the user had no profile: also answered 202) and `runtime_ms`.',
        pathParameters: ['user_id'],
        responses: { 202: asyncAcknowledgementResponse('Accepted; the profile is deleted offline.') },
        errors: [400],
      }),
    },
    [`${USER}/events`]: {
      get: operation({
        operationId: 'listUserEvents',
        tag: 'Users',
        summary: "Get a user's event history",
        description:
          'The events of the user, most recent first; a user without events (or unknown) gets `[]`. Tracked events appear ' +
          `here within seconds. \`limit\` is a whole number from 1 to ${EVENT_HISTORY_MAX_LIMIT} (default ` +
          `${EVENT_HISTORY_DEFAULT_LIMIT}); \`time_zone\` is ${TIME_ZONE_FORMS}, the grammar the event export takes too: ` +
          'timestamps are rendered as the same instant at that offset (`Z` at 0); `+0530` is refused, not read as 530 ' +
          'minutes. Send `+` percent-encoded (`%2B05:30`); an unencoded `+` arrives as a space and is read as `+`. Unknown query parameters ' +
          'are ignored; a `limit` or `time_zone` outside these forms is answered with 400 naming the parameter and its range.',
        pathParameters: ['user_id'],
        query: historyQuery(schemas),
        responses: { 200: listResponse('The events, most recent first', EventSchema, EVENT_CSV) },
        errors: [400],
      }),
      post: operation({
        operationId: 'trackUserEvent',
        tag: 'Users',
        summary: 'Track an event',
        description:
          "Records one event of the user. Answered 200 once the event is durable (standalone: committed to the service's " +
          'outbox; distributed: acknowledged by every in-sync replica of the Kafka topic, else 503 with `Retry-After` within ' +
          'about 5 s), from where it reaches the event store; usable for targeting and personalization at once and in event history within ' +
          'seconds (insights and charts take several minutes). `timestamp` needs seconds and `Z` or an offset ' +
          '(`2024-05-01T05:30:00-04:00`) and must fall in the years 1900 to 2299 (the range the event store holds); it is ' +
          'stored as that instant. Text no store keeps (NUL, a lone UTF-16 surrogate) in the name, `group_id`, ' +
          "`context.url` or the attributes is refused too. An event whose name the account's ingestion " +
          'filtering rules drop is also answered 200: it is counted, not stored. Each invalid field is answered with 400 ' +
          'naming it; a 500 means the event was not recorded and the request may be retried.',
        pathParameters: ['user_id'],
        requestBody: jsonBody(TrackEventSchema, 'The event (JSON only)'),
        responses: { 200: statusAcknowledgementResponse('Recorded') },
        errors: [400, 413, 415],
      }),
    },
    [`${GROUP}/profile`]: {
      get: operation({
        operationId: 'getGroupProfile',
        tag: 'Groups',
        summary: "Get a group's profile",
        description: 'The complete group profile, property values with their JSON types. A group without a profile is answered with 404.',
        pathParameters: ['group_id'],
        responses: { 200: objectResponse('The complete group profile as a key/value object', GroupProfileSchema, PROFILE_CSV) },
        errors: [400, 404],
      }),
      patch: operation({
        operationId: 'updateGroupProfile',
        tag: 'Groups',
        summary: "Update a group's profile",
        description: `The whole body is key/value group profile data. ${PROFILE_MERGE}`,
        pathParameters: ['group_id'],
        requestBody: profileBody(GroupProfileUpdateSchema, 'Group profile data'),
        responses: { 200: statusAcknowledgementResponse('Updated') },
        errors: [400, 413, 415],
      }),
    },
    [`${GROUP}/users`]: {
      patch: associateUsers('PATCH'),
      post: associateUsers('POST'),
    },
  };
}
