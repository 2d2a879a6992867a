import { Column, Entity, PrimaryColumn } from 'typeorm';
import { AuditColumns } from './audit-columns';
import type { FlowRecord } from '../domain/content-records';

@Entity({ name: 'flows' })
export class FlowEntity extends AuditColumns implements FlowRecord {
  @PrimaryColumn({ name: 'account_id', type: 'text' })
  accountId!: string;

  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'boolean' })
  published!: boolean;

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt!: Date | null;

  @Column({ type: 'text' })
  frequency!: string;

  @Column({ name: 'tag_ids', type: 'text', array: true })
  tagIds!: string[];
}
