import { Type, type Static } from '@sinclair/typebox';
import { ID_MAX_LENGTH, identifierSchema } from './input-limits';

/**
 * End-user and group profiles: free-form key/value objects with no fixed field list. A user profile is
 * addressed by `user_id`, a group profile by `group_id` (both in the path). Property names are subject
 * to the account's ingestion filtering rules (`user_properties`, `group_properties`) at every write.
 */

/**
 * The most properties one profile update (`PATCH .../profile`, user or group) may write: each is a
 * property merged into the stored profile and, for a user, an attribute of its `svc:profile_update`
 * event, so an unbounded body would be one unbounded row and event.
 */
export const PROFILE_UPDATE_MAX_PROPERTIES = 1_000;

const freeForm = (id: string, description: string) =>
  Type.Object({}, { $id: id, additionalProperties: true, description, examples: [{ plan: 'pro', seats: 12, beta: true }] });

/** A profile update: at most `PROFILE_UPDATE_MAX_PROPERTIES` properties, each name neither empty nor holding NUL. */
const profileUpdate = (id: string, description: string) =>
  Type.Object(
    {},
    {
      $id: id,
      additionalProperties: true,
      maxProperties: PROFILE_UPDATE_MAX_PROPERTIES,
      description:
        `${description} At most ${PROFILE_UPDATE_MAX_PROPERTIES} properties; a property name must not be empty, and no name or ` +
        'text value may contain NUL (`\\u0000`) or a lone UTF-16 surrogate (400 naming the property).',
      examples: [{ plan: 'pro', seats: 12, beta: true }],
    },
  );

export const UserProfileSchema = freeForm('UserProfile', 'The complete profile of an end user as key/value pairs.');
export type UserProfile = Static<typeof UserProfileSchema>;

export const UserProfileUpdateSchema = profileUpdate(
  'UserProfileUpdate',
  'Key/value profile data: every key of the body is set to its value, other keys of the profile are kept. The update is ' +
    'usable for targeting and personalization as soon as the answer arrives, and is recorded as an internal ' +
    '`svc:profile_update` event. Properties dropped by the ingestion filtering rules are not stored.',
);
export type UserProfileUpdate = Static<typeof UserProfileUpdateSchema>;

export const GroupProfileSchema = freeForm('GroupProfile', 'The complete profile of a group as key/value pairs.');
export type GroupProfile = Static<typeof GroupProfileSchema>;

export const GroupProfileUpdateSchema = profileUpdate(
  'GroupProfileUpdate',
  'Key/value group profile data: every key of the body is set to its value, other keys are kept. Usable for targeting ' +
    'at once. Properties dropped by the ingestion filtering rules are not stored.',
);
export type GroupProfileUpdate = Static<typeof GroupProfileUpdateSchema>;

export const UserIdListSchema = Type.Object(
  {
    user_ids: Type.Array(identifierSchema('An end-user identifier'), {
      description: 'End-user identifiers; repeating an id is harmless',
    }),
  },
  {
    $id: 'UserIdList',
    description:
      'User ids as JSON. The same ids may instead be sent as `application/ndjson` (one double-quoted JSON string per ' +
      'line), as `text/csv` (one id per line, optional header `user_id` or `userId`) or as an uploaded file of either form. ' +
      `Every id, in every form, has 1 to ${ID_MAX_LENGTH} characters and no NUL or lone UTF-16 surrogate; the first that ` +
      'does not is answered with 400 naming it (`user_ids[3]`, or `line 4`), and nothing of the request is applied.',
  },
);
export type UserIdList = Static<typeof UserIdListSchema>;
