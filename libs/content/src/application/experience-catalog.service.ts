import { Injectable } from '@nestjs/common';
import { type Experience, ExperienceUpsertSchema } from '@guidepost/contracts-http';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { notFound } from '@guidepost/platform-errors';
import { ExperienceRepository } from '../data-access/content.repositories';
import { CONTENT_SCHEMA } from '../data-access/content-schema';
import { TYPED_EXPERIENCE_KINDS, type ExperienceKind } from '../domain/content-records';
import type { PublicationCommand } from '../domain/publication';
import { toPublicExperience } from '../domain/public-shapes';
import { experienceRecordOf } from '../domain/record-writes';
import type { PublishableCatalog } from './publishable-catalog';
import { assertStateFollowsPublished } from '../domain/publication';
import { recordBatchOf } from './record-batch';
import { changePublication, upsertRecords } from './transactional-writes';

/** The records of a pins or mobile admin upsert body (a JSON array, or one record). */
export const readExperienceUpserts = recordBatchOf(ExperienceUpsertSchema, assertStateFollowsPublished);
export type ExperienceUpserts = ReturnType<typeof readExperienceUpserts>;

/** Pins and mobile experiences: one record shape and one set of rules, told apart by kind. */
@Injectable()
export class ExperienceCatalog {
  constructor(
    private readonly experiences: ExperienceRepository,
    @InjectUnitOfWork(CONTENT_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  /** The catalog of one kind, as the public endpoints of `/pins` or `/mobile` use it. */
  of(kind: ExperienceKind): PublishableCatalog<Experience> {
    return {
      list: (accountId, baseUrl) => this.list(kind, accountId, baseUrl),
      get: (accountId, id, baseUrl) => this.get(kind, accountId, id, baseUrl),
      publish: (accountId, id) => this.changePublication(kind, accountId, id, 'publish'),
      unpublish: (accountId, id) => this.changePublication(kind, accountId, id, 'unpublish'),
    };
  }

  /** Admin upsert of a JSON array of records of one kind (or one record); answers how many were written. */
  upsert(kind: ExperienceKind, accountId: string, inputs: ExperienceUpserts): Promise<number> {
    return upsertRecords(this.unitOfWork, this.experiences, { accountId, kind }, inputs, (input, existing, now) =>
      experienceRecordOf(kind, accountId, input, existing, now),
    );
  }

  private async list(kind: ExperienceKind, accountId: string, baseUrl: string): Promise<Experience[]> {
    const records = await this.experiences.list({ accountId, kind });
    return records.map((record) => toPublicExperience(record, baseUrl));
  }

  private async get(kind: ExperienceKind, accountId: string, id: string, baseUrl: string): Promise<Experience> {
    const record = await this.experiences.findOne({ accountId, kind }, id);
    if (!record) throw notFound(TYPED_EXPERIENCE_KINDS[kind].resourceName, id);
    return toPublicExperience(record, baseUrl);
  }

  private changePublication(kind: ExperienceKind, accountId: string, id: string, command: PublicationCommand): Promise<void> {
    const target = { scope: { accountId, kind }, id, resourceName: TYPED_EXPERIENCE_KINDS[kind].resourceName };
    return changePublication(this.unitOfWork, this.experiences, target, command);
  }
}
