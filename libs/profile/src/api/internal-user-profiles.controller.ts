import { Controller, HttpCode, HttpStatus, Param, Post, UseGuards } from '@nestjs/common';
import { ProfileLookupRequestSchema, type ProfileLookupResponse, UserProfileDirectory } from '@guidepost/contracts-http';
import { AcceptsBody, compileValidator, InboundBody, InternalCallerGuard } from '@guidepost/platform-http';

const validateLookup = compileValidator(ProfileLookupRequestSchema);

/**
 * User profiles for the other services of the distributed shape (`HttpUserProfileDirectory`), e.g. the
 * properties of a segment membership export. A lookup reads only, so it is a POST for its body of ids
 * alone. Not part of the public API.
 */
@Controller('internal/v1/accounts/:account_id/user-profiles')
@UseGuards(InternalCallerGuard)
export class InternalUserProfilesController {
  constructor(private readonly directory: UserProfileDirectory) {}

  @Post('lookup')
  @HttpCode(HttpStatus.OK)
  @AcceptsBody('json')
  async lookup(@Param('account_id') accountId: string, @InboundBody() body: InboundBody): Promise<ProfileLookupResponse> {
    const { user_ids: userIds } = validateLookup(body.kind === 'json' ? body.value : {});
    return { profiles: Object.fromEntries(await this.directory.getProfiles(accountId, userIds)) };
  }
}
