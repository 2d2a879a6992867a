import { Injectable } from '@nestjs/common';
import { UserProfileDirectory } from '@guidepost/contracts-http';
import { ProfileRepository } from '../data-access/profile.repository';

/** Serves other services' reads of user profiles (for example segment membership exports). */
@Injectable()
export class UserProfileDirectoryService implements UserProfileDirectory {
  constructor(private readonly profiles: ProfileRepository) {}

  async getProfiles(accountId: string, userIds: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
    if (userIds.length === 0) return new Map();
    return this.profiles.findUsers(accountId, userIds);
  }
}
