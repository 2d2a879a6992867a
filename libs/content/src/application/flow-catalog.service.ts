import { Injectable } from '@nestjs/common';
import { type Flow, FlowUpsertSchema } from '@guidepost/contracts-http';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { notFound } from '@guidepost/platform-errors';
import { FlowRepository } from '../data-access/content.repositories';
import { CONTENT_SCHEMA } from '../data-access/content-schema';
import type { PublicationCommand } from '../domain/publication';
import { toPublicFlow } from '../domain/public-shapes';
import { flowRecordOf } from '../domain/record-writes';
import type { PublishableCatalog } from './publishable-catalog';
import { recordBatchOf } from './record-batch';
import { changePublication, upsertRecords } from './transactional-writes';

/** The flows of an admin upsert body (a JSON array, or one flow). */
export const readFlowUpserts = recordBatchOf(FlowUpsertSchema);
export type FlowUpserts = ReturnType<typeof readFlowUpserts>;

@Injectable()
export class FlowCatalog implements PublishableCatalog<Flow> {
  constructor(
    private readonly flows: FlowRepository,
    @InjectUnitOfWork(CONTENT_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  async list(accountId: string, baseUrl: string): Promise<Flow[]> {
    const records = await this.flows.list({ accountId });
    return records.map((record) => toPublicFlow(record, baseUrl));
  }

  async get(accountId: string, id: string, baseUrl: string): Promise<Flow> {
    const record = await this.flows.findOne({ accountId }, id);
    if (!record) throw notFound('Flow', id);
    return toPublicFlow(record, baseUrl);
  }

  publish(accountId: string, id: string): Promise<void> {
    return this.changePublication(accountId, id, 'publish');
  }

  unpublish(accountId: string, id: string): Promise<void> {
    return this.changePublication(accountId, id, 'unpublish');
  }

  /** Admin upsert of a JSON array of flows (or one flow); answers how many were written. */
  upsert(accountId: string, inputs: FlowUpserts): Promise<number> {
    return upsertRecords(this.unitOfWork, this.flows, { accountId }, inputs, (input, existing, now) =>
      flowRecordOf(accountId, input, existing, now),
    );
  }

  private changePublication(accountId: string, id: string, command: PublicationCommand): Promise<void> {
    return changePublication(this.unitOfWork, this.flows, { scope: { accountId }, id, resourceName: 'Flow' }, command);
  }
}
