import { Controller, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import {
  type ProfileLookupRequest,
  ProfileLookupRequestSchema,
  type ProfileLookupResponse,
  UserProfileDirectory,
} from '@guidepost/contracts-http';
import { ValidBody } from '@guidepost/platform-http';

/**
 * User profiles for the other services of the distributed shape (`HttpUserProfileDirectory`), e.g. the
 * properties of a segment membership export. A lookup reads only, so it is a POST for its body of ids
 * alone. Not part of the public API.
 */
@Controller('internal/v1/accounts/:account_id/user-profiles')
export class InternalUserProfilesController {
  constructor(private readonly directory: UserProfileDirectory) {}

  @Post('lookup')
  @HttpCode(HttpStatus.OK)
  async lookup(
    @Param('account_id') accountId: string,
    @ValidBody(ProfileLookupRequestSchema) { user_ids: userIds }: ProfileLookupRequest,
  ): Promise<ProfileLookupResponse> {
    return { profiles: Object.fromEntries(await this.directory.getProfiles(accountId, userIds)) };
  }
}
