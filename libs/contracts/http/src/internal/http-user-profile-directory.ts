import { InternalApiCaller, type InternalApiOptions } from './internal-api-caller';
import {
  internalProfileLookupPath,
  PROFILE_LOOKUP_MAX_USER_IDS,
  ProfileLookupResponseSchema,
  type ProfileLookupRequest,
} from './internal-api.schema';
import { UserProfileDirectory } from './user-profile-directory.port';

/**
 * `UserProfileDirectory` of a service in its own process (distributed shape): reads profiles through
 * the profile service's internal API, at most `PROFILE_LOOKUP_MAX_USER_IDS` users per call. A lookup
 * changes nothing, so it is repeated with back-off when the profile service is unreachable or answers 503.
 */
export class HttpUserProfileDirectory extends UserProfileDirectory {
  private readonly profile: InternalApiCaller;

  /** Throws when the URL or the token is missing, naming the setting. */
  constructor(profileServiceUrl: string | undefined, internalToken: string | undefined, options?: InternalApiOptions) {
    super();
    this.profile = new InternalApiCaller('profile', profileServiceUrl, internalToken, options);
  }

  async getProfiles(accountId: string, userIds: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
    const profiles = new Map<string, Record<string, unknown>>();
    for (let start = 0; start < userIds.length; start += PROFILE_LOOKUP_MAX_USER_IDS) {
      const body: ProfileLookupRequest = { user_ids: userIds.slice(start, start + PROFILE_LOOKUP_MAX_USER_IDS) };
      const answer = await this.profile.post({
        operation: 'look up user profiles',
        path: internalProfileLookupPath(accountId),
        body,
        expectedStatus: 200,
        answerSchema: ProfileLookupResponseSchema,
        retry: 'idempotent',
      });
      for (const [userId, properties] of Object.entries(answer.profiles)) profiles.set(userId, properties);
    }
    return profiles;
  }
}
