import { Controller, Get, HttpCode, HttpStatus, Param, Patch, Post } from '@nestjs/common';
import { type GroupProfile, GroupProfileUpdateSchema, statusAcknowledgement, type StatusAcknowledgement } from '@guidepost/contracts-http';
import { AcceptsBody, compileValidator, IdentifierParam, InboundBody, userIdsOf } from '@guidepost/platform-http';
import { GroupAssociationService } from '../application/group-association.service';
import { ProfilesService } from '../application/profiles.service';
import { profilePropertiesOf } from './profile-body';

const parseGroupProfileUpdate = compileValidator(GroupProfileUpdateSchema);

/** A group's profile, and the association of users with the group. */
@Controller('v2/accounts/:account_id/groups/:group_id')
export class GroupController {
  constructor(
    private readonly profiles: ProfilesService,
    private readonly association: GroupAssociationService,
  ) {}

  @Get('profile')
  get(@Param('account_id') accountId: string, @Param('group_id', IdentifierParam) groupId: string): Promise<GroupProfile> {
    return this.profiles.get('group', accountId, groupId);
  }

  @Patch('profile')
  @AcceptsBody('json', 'csv')
  async update(
    @Param('account_id') accountId: string,
    @Param('group_id', IdentifierParam) groupId: string,
    @InboundBody() body: InboundBody,
  ): Promise<StatusAcknowledgement> {
    await this.profiles.update('group', accountId, groupId, await profilePropertiesOf(body, parseGroupProfileUpdate));
    return statusAcknowledgement();
  }

  /** Clients send the association as PATCH or as POST (docs/api-contract.md#choices-where-the-public-documentation-is-silent): both are the same operation. */
  @Patch('users')
  @AcceptsBody('json', 'ndjson', 'csv', 'file')
  associateUsers(
    @Param('account_id') accountId: string,
    @Param('group_id', IdentifierParam) groupId: string,
    @InboundBody() body: InboundBody,
  ): Promise<StatusAcknowledgement> {
    return this.associate(accountId, groupId, body);
  }

  @Post('users')
  @HttpCode(HttpStatus.OK)
  @AcceptsBody('json', 'ndjson', 'csv', 'file')
  associateUsersWithPost(
    @Param('account_id') accountId: string,
    @Param('group_id', IdentifierParam) groupId: string,
    @InboundBody() body: InboundBody,
  ): Promise<StatusAcknowledgement> {
    return this.associate(accountId, groupId, body);
  }

  private async associate(accountId: string, groupId: string, body: InboundBody): Promise<StatusAcknowledgement> {
    await this.association.associate(accountId, groupId, userIdsOf(body));
    return statusAcknowledgement();
  }
}
