import { Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch } from '@nestjs/common';
import {
  asyncAcknowledgement,
  type AsyncAcknowledgement,
  statusAcknowledgement,
  type StatusAcknowledgement,
  type UserProfile,
  UserProfileUpdateSchema,
} from '@guidepost/contracts-http';
import { AcceptsBody, compileValidator, IdentifierParam, InboundBody, PublicBaseUrl } from '@guidepost/platform-http';
import { ProfileDeletionService } from '../application/profile-deletion.service';
import { ProfilesService } from '../application/profiles.service';
import { profilePropertiesOf } from './profile-body';

const parseUserProfileUpdate = compileValidator(UserProfileUpdateSchema);

/** An end user's profile. Its CSV form (`Accept: text/csv`) has one column per property. */
@Controller('v2/accounts/:account_id/users/:user_id/profile')
export class UserProfileController {
  constructor(
    private readonly profiles: ProfilesService,
    private readonly deletion: ProfileDeletionService,
  ) {}

  @Get()
  get(@Param('account_id') accountId: string, @Param('user_id', IdentifierParam) userId: string): Promise<UserProfile> {
    return this.profiles.get('user', accountId, userId);
  }

  @Patch()
  @AcceptsBody('json', 'csv')
  async update(
    @Param('account_id') accountId: string,
    @Param('user_id', IdentifierParam) userId: string,
    @InboundBody() body: InboundBody,
  ): Promise<StatusAcknowledgement> {
    await this.profiles.update('user', accountId, userId, await profilePropertiesOf(body, parseUserProfileUpdate));
    return statusAcknowledgement();
  }

  /** 202: deletion is an offline job by contract, though it completes right away. */
  @Delete()
  @HttpCode(HttpStatus.ACCEPTED)
  async delete(
    @Param('account_id') accountId: string,
    @Param('user_id', IdentifierParam) userId: string,
    @PublicBaseUrl() baseUrl: string,
  ): Promise<AsyncAcknowledgement> {
    const job = await this.deletion.deleteUserProfile(accountId, userId);
    return asyncAcknowledgement(baseUrl, accountId, job.id);
  }
}
