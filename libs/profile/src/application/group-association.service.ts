import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { profileUpdateEvent } from '../domain/profile-update-events';
import { distinctUserIdBatches } from '../domain/user-id-batches';
import { ProfileRepository } from '../data-access/profile.repository';
import { PROFILE_SCHEMA } from '../data-access/profile-schema';
import { IntakeFilter } from './intake-filter';
import { ProfileUpdateRecorder } from './profile-update-recorder';

/**
 * Associating users with a group. The association is the user-profile property `group_id`: a user
 * belongs to one group at a time, and the last association wins. It is not subject to the
 * user-property filtering rules (it is what the request asks for, not free-form data); its events
 * are, like every `svc:profile_update`, to the event-name rules.
 */
@Injectable()
export class GroupAssociationService {
  constructor(
    private readonly profiles: ProfileRepository,
    private readonly filter: IntakeFilter,
    private readonly updates: ProfileUpdateRecorder,
    @InjectUnitOfWork(PROFILE_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  /**
   * Sets `group_id` on every user's profile (creating the profiles that do not exist yet), with a
   * `svc:profile_update` event per user, in one transaction: the ids are read as they stream in,
   * one batch at a time (its events written to the outbox before the next is read), and a bad line rolls everything back so that a 400 leaves nothing half done.
   * The group id (a path parameter) and every user id (`userIdsOf`) are checked as ids before they get here.
   */
  async associate(accountId: string, groupId: string, userIds: AsyncIterable<string>): Promise<void> {
    const written = { group_id: groupId };
    await this.unitOfWork.run(async (tx) => {
      const rules = await this.filter.rulesOf(tx.manager, accountId);
      for await (const batch of distinctUserIdBatches(userIds)) {
        await this.profiles.mergeIntoUsers(tx.manager, accountId, batch, written);
        const now = new Date();
        const events = batch.map((userId) => profileUpdateEvent(randomUUID(), userId, written, now));
        this.updates.record(tx, rules, 'profile_update', accountId, events);
        // Memory stays at one batch however many ids arrive: the batch's events go to the outbox now.
        await tx.flush();
      }
    });
  }
}
