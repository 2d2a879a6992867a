import { Column, Entity, PrimaryColumn } from 'typeorm';
import { PublishableColumns } from './audit-columns';
import type { Step } from '@guidepost/contracts-http';
import type { ExperienceKind, ExperienceRecord } from '../domain/content-records';

/** Pins and mobile experiences share one record shape, so they share one table, told apart by `kind`. */
@Entity({ name: 'experiences' })
export class ExperienceEntity extends PublishableColumns implements ExperienceRecord {
  @PrimaryColumn({ name: 'account_id', type: 'text' })
  accountId!: string;

  @PrimaryColumn({ type: 'text' })
  kind!: ExperienceKind;

  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ name: 'app_id', type: 'text' })
  appId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  state!: string;

  @Column({ type: 'text' })
  platform!: string;

  @Column({ type: 'text' })
  type!: string;

  @Column({ name: 'preview_url', type: 'text', nullable: true })
  previewUrl!: string | null;

  @Column({ name: 'locked_for_localization', type: 'boolean' })
  lockedForLocalization!: boolean;

  @Column({ type: 'text', nullable: true })
  theme!: string | null;

  @Column({ type: 'jsonb' })
  traits!: Record<string, unknown>[];

  @Column({ type: 'jsonb' })
  steps!: Step[];
}
