import { Injectable } from '@nestjs/common';
import { UserProfileDirectory } from '@guidepost/contracts-http';
import { UserProfileRepository } from '../data-access/user-profile.repository';

/** Serves other services' reads of user profiles (for example segment membership exports). */
@Injectable()
export class UserProfileDirectoryService implements UserProfileDirectory {
  constructor(private readonly profiles: UserProfileRepository) {}

  async getProfiles(accountId: string, userIds: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
    if (userIds.length === 0) return new Map();
    const found = await this.profiles.findByUserIds(accountId, userIds);
    return new Map(found.map((profile) => [profile.userId, profile.properties]));
  }
}
