import { Column, Entity, PrimaryColumn } from 'typeorm';
import { AuditColumns } from './audit-columns';
import type { TagRecord } from '../domain/content-records';

@Entity({ name: 'tags' })
export class TagEntity extends AuditColumns implements TagRecord {
  @PrimaryColumn({ name: 'account_id', type: 'text' })
  accountId!: string;

  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;
}
