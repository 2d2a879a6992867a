import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { notFound } from '@guidepost/platform-errors';
import { PROFILE_KINDS, type ProfileKind } from '../domain/profile-kind';
import { assertStorableProperties, type ProfileProperties } from '../domain/profile-properties';
import { profileUpdateEvent } from '../domain/profile-update-events';
import { ProfileRepository } from '../data-access/profile.repository';
import { PROFILE_SCHEMA } from '../data-access/profile-schema';
import { IntakeFilter } from './intake-filter';
import { ProfileUpdateRecorder } from './profile-update-recorder';

/** Reading a user or group profile, and updating it through `PATCH .../profile`. */
@Injectable()
export class ProfilesService {
  constructor(
    private readonly profiles: ProfileRepository,
    private readonly filter: IntakeFilter,
    private readonly updates: ProfileUpdateRecorder,
    @InjectUnitOfWork(PROFILE_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  /** The id was checked in the path (`IdentifierParam`), like every id of the API. */
  async get(kind: ProfileKind, accountId: string, id: string): Promise<ProfileProperties> {
    const profile = await this.profiles.find(kind, accountId, id);
    if (!profile) throw notFound(PROFILE_KINDS[kind].resource, id);
    return profile;
  }

  /**
   * Merges the properties the filtering rules keep into the profile (creating it if need be). It is
   * committed before the answer, so the update is usable at once; a user's update records its
   * `svc:profile_update` event in the same transaction.
   */
  async update(kind: ProfileKind, accountId: string, id: string, properties: ProfileProperties): Promise<void> {
    assertStorableProperties(properties);
    const intake = PROFILE_KINDS[kind].updateIntake;
    await this.unitOfWork.run(async (tx) => {
      const rules = await this.filter.rulesOf(tx.manager, accountId);
      const written = this.filter.keepProperties(rules, { kind, intake, accountId, id }, properties);
      await this.profiles.merge(tx.manager, kind, accountId, new Map([[id, written]]));
      // A write the rules emptied changed nothing worth an event.
      if (kind === 'user' && Object.keys(written).length > 0) {
        this.updates.record(tx, rules, intake, accountId, [profileUpdateEvent(randomUUID(), id, written, new Date())]);
      }
    });
  }
}
