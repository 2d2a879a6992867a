import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { FilteringMode, StoredFilteringRules } from '../domain/ingestion-filtering-rules';

/** One row per account that has set rules; an account without a row has the default rules. */
@Entity({ name: 'ingestion_filtering_rules' })
export class IngestionFilteringRulesEntity implements StoredFilteringRules {
  @PrimaryColumn({ name: 'account_id', type: 'text' })
  accountId!: string;

  @Column({ type: 'text' })
  mode!: FilteringMode;

  @Column({ name: 'event_names', type: 'text', array: true })
  eventNames!: string[];

  @Column({ name: 'user_properties', type: 'text', array: true })
  userProperties!: string[];

  @Column({ name: 'group_properties', type: 'text', array: true })
  groupProperties!: string[];

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
