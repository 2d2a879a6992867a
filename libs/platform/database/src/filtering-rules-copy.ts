import type { EntityManager } from 'typeorm';
import type { IngestionFilteringRules, IngestionFilteringRulesChanged, PayloadOf } from '@guidepost/contracts-events';

interface RulesRow {
  mode: IngestionFilteringRules['mode'];
  event_names: string[];
  user_properties: string[];
  group_properties: string[];
}

/**
 * A service's own copy of the accounts' ingestion filtering rules (owned by the content service and
 * announced by `IngestionFilteringRulesChanged`), in a table of the service's schema with the columns
 * `account_id`, `mode`, `event_names`, `user_properties`, `group_properties`, `updated_at`. Every
 * service that applies the rules keeps one: services never read each other's tables.
 */
export class FilteringRulesCopy {
  /** `table` is schema-qualified and fixed in code (`ingestion.filtering_rules`), never input. */
  constructor(private readonly table: string) {}

  /** The account's rules; null when the account never set any. */
  async find(manager: EntityManager, accountId: string): Promise<IngestionFilteringRules | null> {
    const rows: RulesRow[] = await manager.query(
      `SELECT mode, event_names, user_properties, group_properties FROM ${this.table} WHERE account_id = $1`,
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
      `INSERT INTO ${this.table} AS stored
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
