import { Column, Entity, PrimaryColumn } from 'typeorm';
import { AuditColumns } from './audit-columns';
import type { StudioDocumentRecord } from '../domain/content-records';

/**
 * The records of every studio-document kind share one table, told apart by `kind` (the collection),
 * so that a new kind needs no migration: the studio's document is one `jsonb` column, and only the
 * fields Guidepost manages (publication, lifecycle label and audit), and the name lists are ordered by, have columns of their own.
 */
@Entity({ name: 'studio_documents' })
export class StudioDocumentEntity extends AuditColumns implements StudioDocumentRecord {
  @PrimaryColumn({ name: 'account_id', type: 'text' })
  accountId!: string;

  @PrimaryColumn({ type: 'text' })
  kind!: string;

  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'boolean' })
  published!: boolean;

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt!: Date | null;

  @Column({ type: 'text' })
  state!: string;

  @Column({ type: 'jsonb' })
  document!: Record<string, unknown>;
}
