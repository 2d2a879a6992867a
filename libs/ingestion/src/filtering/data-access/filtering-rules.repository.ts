import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import type { IngestionFilteringRules, IngestionFilteringRulesChanged, PayloadOf } from '@guidepost/contracts-events';
import { INGESTION_SCHEMA } from '../../data-access/ingestion-database';
import { FilteringRulesEntity } from './filtering-rules.entity';

/** The service's copy of the filtering rules. */
@Injectable()
export class FilteringRulesRepository {
  constructor(@InjectRepository(FilteringRulesEntity, INGESTION_SCHEMA) private readonly rules: Repository<FilteringRulesEntity>) {}

  /** The account's rules; null when it never set any. */
  find(accountId: string): Promise<IngestionFilteringRules | null> {
    return this.rules.findOne({
      select: { mode: true, eventNames: true, userProperties: true, groupProperties: true },
      where: { accountId },
    });
  }

  /**
   * Stores an announced change unless a newer one is already stored, so that a redelivered or late
   * message never brings old rules back. Equal times: the later delivery wins (messages of one
   * account arrive in the order they were committed).
   */
  async keepNewest(manager: EntityManager, change: PayloadOf<typeof IngestionFilteringRulesChanged>): Promise<void> {
    await manager.query(
      `INSERT INTO ${INGESTION_SCHEMA}.filtering_rules (account_id, mode, event_names, user_properties, group_properties, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (account_id) DO UPDATE
          SET mode = EXCLUDED.mode, event_names = EXCLUDED.event_names, user_properties = EXCLUDED.user_properties,
              group_properties = EXCLUDED.group_properties, updated_at = EXCLUDED.updated_at
        WHERE filtering_rules.updated_at <= EXCLUDED.updated_at`,
      [change.accountId, change.mode, change.eventNames, change.userProperties, change.groupProperties, change.updatedAt],
    );
  }
}
