import { Injectable } from '@nestjs/common';
import { resourceNameOf, StudioDocumentUpsertSchema, type ExperienceKindDefinition } from '@guidepost/contracts-http';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { notFound } from '@guidepost/platform-errors';
import { StudioDocumentRepository } from '../data-access/content.repositories';
import { CONTENT_SCHEMA } from '../data-access/content-schema';
import { toPublicStudioDocument, type PublicStudioDocument } from '../domain/public-shapes';
import { studioDocumentRecordOf } from '../domain/record-writes';
import type { PublishableCatalog } from './publishable-catalog';
import { assertStateFollowsPublished } from '../domain/publication';
import { recordBatchOf } from './record-batch';
import { changePublication, upsertRecords } from './transactional-writes';

/** The documents of a studio-document kind's admin upsert body (a JSON array, or one document). */
export const readStudioDocumentUpserts = recordBatchOf(StudioDocumentUpsertSchema, assertStateFollowsPublished);
export type StudioDocumentUpserts = ReturnType<typeof readStudioDocumentUpserts>;

/** The records of every studio-document kind (launchpads, banners, checklists, ...): one store, told apart by kind. */
@Injectable()
export class StudioDocumentCatalog {
  constructor(
    private readonly documents: StudioDocumentRepository,
    @InjectUnitOfWork(CONTENT_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  /** The catalog of one kind, as the public endpoints of `/{collection}` use it. */
  of(kind: ExperienceKindDefinition): PublishableCatalog<PublicStudioDocument> {
    const scope = (accountId: string) => ({ accountId, kind: kind.collection });
    const target = (accountId: string, id: string) => ({ scope: scope(accountId), id, resourceName: resourceNameOf(kind) });
    return {
      list: async (accountId, baseUrl) => {
        const records = await this.documents.list(scope(accountId));
        return records.map((record) => toPublicStudioDocument(record, baseUrl));
      },
      get: async (accountId, id, baseUrl) => {
        const record = await this.documents.findOne(scope(accountId), id);
        if (!record) throw notFound(resourceNameOf(kind), id);
        return toPublicStudioDocument(record, baseUrl);
      },
      publish: (accountId, id) => changePublication(this.unitOfWork, this.documents, target(accountId, id), 'publish'),
      unpublish: (accountId, id) => changePublication(this.unitOfWork, this.documents, target(accountId, id), 'unpublish'),
    };
  }

  /** Admin upsert of a JSON array of documents of one kind (or one document); answers how many were written. */
  upsert(kind: ExperienceKindDefinition, accountId: string, inputs: StudioDocumentUpserts): Promise<number> {
    return upsertRecords(this.unitOfWork, this.documents, { accountId, kind: kind.collection }, inputs, (input, existing, now) =>
      studioDocumentRecordOf(kind.collection, accountId, input, existing, now),
    );
  }
}
