import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { SegmentRecord } from '../domain/segment';

@Entity({ name: 'segments' })
export class SegmentEntity implements SegmentRecord {
  @PrimaryColumn({ name: 'account_id', type: 'text' })
  accountId!: string;

  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  description!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  @Column({ name: 'updated_by', type: 'text' })
  updatedBy!: string;
}
