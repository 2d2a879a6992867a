import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { TagRecord } from '../domain/content-records';

@Entity({ name: 'tags' })
export class TagEntity implements TagRecord {
  @PrimaryColumn({ name: 'account_id', type: 'text' })
  accountId!: string;

  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  @Column({ name: 'updated_by', type: 'text' })
  updatedBy!: string;
}
