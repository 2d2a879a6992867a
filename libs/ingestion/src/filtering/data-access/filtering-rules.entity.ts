import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { IngestionFilteringRules } from '@guidepost/contracts-events';

/** One account's rules as last announced by the content service (the newest by `updatedAt`). */
@Entity({ name: 'filtering_rules' })
export class FilteringRulesEntity implements IngestionFilteringRules {
  @PrimaryColumn({ name: 'account_id', type: 'text' })
  accountId!: string;

  @Column({ type: 'text' })
  mode!: IngestionFilteringRules['mode'];

  @Column({ name: 'event_names', type: 'text', array: true })
  eventNames!: string[];

  @Column({ name: 'user_properties', type: 'text', array: true })
  userProperties!: string[];

  @Column({ name: 'group_properties', type: 'text', array: true })
  groupProperties!: string[];

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
