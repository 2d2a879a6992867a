import { EventHistoryQuerySchema, EventSchema, TrackEventSchema } from '../../schemas/events.schema';
import {
  GroupProfileSchema,
  GroupProfileUpdateSchema,
  UserIdListSchema,
  UserProfileSchema,
  UserProfileUpdateSchema,
} from '../../schemas/profiles.schema';
import type { JsonObject, SchemaComponents } from '../schema-components';
import {
  ACCOUNT_PATH,
  asyncAcknowledgementResponse,
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
const EVENT_CSV: CsvForm = {
  columns: ['user_id', 'name', 'timestamp'],
  note: 'The `attributes` object is flattened into `attributes.<key>` columns (the union of keys, sorted).',
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
      'Sets the group of each user: one synchronous profile update per user, done when the answer arrives. Some clients ' +
      'send this as PATCH, others as POST: both are accepted and behave the same.',
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
        pathParameters: ['user_id'],
        responses: { 200: objectResponse('The complete profile as a key/value object', UserProfileSchema, PROFILE_CSV) },
        errors: [404],
      }),
      patch: operation({
        operationId: 'updateUserProfile',
        tag: 'Users',
        summary: "Update a user's profile",
        description: 'The whole body is key/value profile data. The update is immediately usable for targeting and personalization.',
        pathParameters: ['user_id'],
        requestBody: jsonBody(UserProfileUpdateSchema, 'Profile data (JSON only)'),
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
          'offline).',
        pathParameters: ['user_id'],
        responses: { 202: asyncAcknowledgementResponse('Accepted; the profile is deleted offline.') },
      }),
    },
    [`${USER}/events`]: {
      get: operation({
        operationId: 'listUserEvents',
        tag: 'Users',
        summary: "Get a user's event history",
        description:
          'The events of the user, most recent first. Tracked events appear here within seconds. Unknown query parameters ' +
          'are ignored; a `limit` or `time_zone` out of range is answered with 400 naming the parameter.',
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
          'Records one event of the user. Acknowledged once durable; immediately usable for targeting and personalization ' +
          'and in event history within seconds (insights and charts take several minutes).',
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
        pathParameters: ['group_id'],
        responses: { 200: objectResponse('The complete group profile as a key/value object', GroupProfileSchema, PROFILE_CSV) },
        errors: [404],
      }),
      patch: operation({
        operationId: 'updateGroupProfile',
        tag: 'Groups',
        summary: "Update a group's profile",
        description: 'The whole body is key/value group profile data. The update is immediately usable for targeting.',
        pathParameters: ['group_id'],
        requestBody: jsonBody(GroupProfileUpdateSchema, 'Group profile data (JSON only)'),
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
