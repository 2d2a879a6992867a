import { Type, type Static } from '@sinclair/typebox';

/**
 * End-user and group profiles: free-form key/value objects with no fixed field list. A user profile is
 * addressed by `user_id`, a group profile by `group_id` (both in the path). Property names are subject
 * to the account's ingestion filtering rules (`user_properties`, `group_properties`) at every write.
 */

const freeForm = (id: string, description: string) =>
  Type.Object({}, { $id: id, additionalProperties: true, description, examples: [{ plan: 'pro', seats: 12, beta: true }] });

export const UserProfileSchema = freeForm(
  'UserProfile',
  'The complete profile of an end user as key/value pairs.',
);
export type UserProfile = Static<typeof UserProfileSchema>;

export const UserProfileUpdateSchema = freeForm(
  'UserProfileUpdate',
  'Key/value profile data: every key of the body is set to its value, other keys of the profile are kept. The update is ' +
    'usable for targeting and personalization as soon as the answer arrives, and is recorded as an internal ' +
    '`svc:profile_update` event. Properties dropped by the ingestion filtering rules are not stored.',
);
export type UserProfileUpdate = Static<typeof UserProfileUpdateSchema>;

export const GroupProfileSchema = freeForm('GroupProfile', 'The complete profile of a group as key/value pairs.');
export type GroupProfile = Static<typeof GroupProfileSchema>;

export const GroupProfileUpdateSchema = freeForm(
  'GroupProfileUpdate',
  'Key/value group profile data: every key of the body is set to its value, other keys are kept. Usable for targeting ' +
    'at once. Properties dropped by the ingestion filtering rules are not stored.',
);
export type GroupProfileUpdate = Static<typeof GroupProfileUpdateSchema>;

export const UserIdListSchema = Type.Object(
  {
    user_ids: Type.Array(Type.String({ minLength: 1, description: 'An end-user identifier' }), {
      description: 'End-user identifiers; repeating an id is harmless',
    }),
  },
  {
    $id: 'UserIdList',
    additionalProperties: false,
    description:
      'User ids as JSON. The same ids may instead be sent as `application/ndjson` (one double-quoted JSON string per ' +
      'line), as `text/csv` (one id per line, optional header `user_id` or `userId`) or as an uploaded file of either form.',
  },
);
export type UserIdList = Static<typeof UserIdListSchema>;
