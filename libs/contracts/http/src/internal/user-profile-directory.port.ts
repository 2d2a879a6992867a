/**
 * Reads end-user profiles, owned by the profile service, for other services (for example the
 * properties of a segment membership export). Never reads the profile tables directly.
 */
export abstract class UserProfileDirectory {
  /** Profiles of the given users of one account; users without a profile are absent from the map. */
  abstract getProfiles(accountId: string, userIds: readonly string[]): Promise<Map<string, Record<string, unknown>>>;
}
