import { Column, Entity, PrimaryColumn } from 'typeorm';
import { PublishableColumns } from './audit-columns';
import type { FlowRecord } from '../domain/content-records';

@Entity({ name: 'flows' })
export class FlowEntity extends PublishableColumns implements FlowRecord {
  @PrimaryColumn({ name: 'account_id', type: 'text' })
  accountId!: string;

  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;
}
