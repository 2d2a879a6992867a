import { Column } from 'typeorm';
import type { AuditFields } from '../domain/content-records';

/** Who made and last changed a content record, and when; every content table carries these columns. */
export abstract class AuditColumns implements AuditFields {
  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  @Column({ name: 'updated_by', type: 'text' })
  updatedBy!: string;
}

/** The publishable content records (flows, pins, mobile experiences) add their publish state and tags. */
export abstract class PublishableColumns extends AuditColumns {
  @Column({ type: 'boolean' })
  published!: boolean;

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt!: Date | null;

  @Column({ type: 'text' })
  frequency!: string;

  @Column({ name: 'tag_ids', type: 'text', array: true })
  tagIds!: string[];
}
