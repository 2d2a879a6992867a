import { Injectable } from '@nestjs/common';
import { type Tag, TagUpsertSchema } from '@guidepost/contracts-http';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { notFound } from '@guidepost/platform-errors';
import { TagRepository } from '../data-access/content.repositories';
import { CONTENT_SCHEMA } from '../data-access/content-schema';
import { toPublicTag } from '../domain/public-shapes';
import { tagRecordOf } from '../domain/record-writes';
import { recordBatchOf } from './record-batch';
import { upsertRecords } from './transactional-writes';

/** The tags of an admin upsert body (a JSON array, or one tag). */
export const readTagUpserts = recordBatchOf(TagUpsertSchema);
export type TagUpserts = ReturnType<typeof readTagUpserts>;

@Injectable()
export class TagCatalog {
  constructor(
    private readonly tags: TagRepository,
    @InjectUnitOfWork(CONTENT_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  /** All tags of the account, ordered by name, then id; their links start with `baseUrl`. */
  async list(accountId: string, baseUrl: string): Promise<Tag[]> {
    const records = await this.tags.list({ accountId });
    return records.map((record) => toPublicTag(record, baseUrl));
  }

  async get(accountId: string, id: string, baseUrl: string): Promise<Tag> {
    const record = await this.tags.findOne({ accountId }, id);
    if (!record) throw notFound('Tag', id);
    return toPublicTag(record, baseUrl);
  }

  /** Admin upsert of a JSON array of tags (or one tag); answers how many were written. */
  upsert(accountId: string, inputs: TagUpserts): Promise<number> {
    return upsertRecords(this.unitOfWork, this.tags, { accountId }, inputs, (input, existing, now) =>
      tagRecordOf(accountId, input, existing, now),
    );
  }
}
