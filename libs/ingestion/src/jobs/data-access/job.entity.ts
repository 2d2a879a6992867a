import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { JobStatus } from '@guidepost/contracts-http';

/** A job of the registry. `status` is a projection: the fold of the job's events, kept in step with them. */
@Entity({ name: 'jobs' })
export class JobEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ name: 'account_id', type: 'text' })
  accountId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt!: Date;

  @Column({ type: 'text' })
  status!: JobStatus;
}
