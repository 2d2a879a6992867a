import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { IngestionFilteringRules, IngestionFilteringRulesChanged, PayloadOf } from '@guidepost/contracts-events';

interface RulesRow {
  mode: IngestionFilteringRules['mode'];
  event_names: string[];
  user_properties: string[];
  group_properties: string[];
}

/** This service's copy of the accounts' ingestion filtering rules. */
@Injectable()
export class FilteringRulesRepository {
  /** The account's rules; null when the account never set any. Read in the caller's transaction. */
  async find(manager: EntityManager, accountId: string): Promise<IngestionFilteringRules | null> {
    const rows: RulesRow[] = await manager.query(
      `SELECT mode, event_names, user_properties, group_properties FROM profile.ingestion_filtering_rules WHERE account_id = $1`,
      [accountId],
    );
    if (rows.length === 0) return null;
    const [row] = rows;
    return { mode: row.mode, eventNames: row.event_names, userProperties: row.user_properties, groupProperties: row.group_properties };
  }

  /**
   * Stores announced rules unless newer ones are already stored: announcements may arrive out of
   * order (redelivery, Kafka partitions rebalanced), and an older one must never undo a newer change.
   * Two changes in the same millisecond arrive in order (one key per account), so the later one wins.
   */
  async keepNewest(manager: EntityManager, rules: PayloadOf<typeof IngestionFilteringRulesChanged>): Promise<void> {
    await manager.query(
      `INSERT INTO profile.ingestion_filtering_rules AS stored
         (account_id, mode, event_names, user_properties, group_properties, updated_at)
       VALUES ($1, $2, $3::text[], $4::text[], $5::text[], $6)
       ON CONFLICT (account_id) DO UPDATE
         SET mode = EXCLUDED.mode, event_names = EXCLUDED.event_names, user_properties = EXCLUDED.user_properties,
             group_properties = EXCLUDED.group_properties, updated_at = EXCLUDED.updated_at
         WHERE stored.updated_at <= EXCLUDED.updated_at`,
      [rules.accountId, rules.mode, rules.eventNames, rules.userProperties, rules.groupProperties, rules.updatedAt],
    );
  }
}
