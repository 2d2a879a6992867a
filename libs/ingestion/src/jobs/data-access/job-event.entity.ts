import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { JobEventName } from '@guidepost/contracts-events';

/** One recorded job event: the source of truth a job's status is folded from, in `sequence` order. */
@Entity({ name: 'job_events' })
export class JobEventEntity {
  @PrimaryColumn({ name: 'job_id', type: 'text' })
  jobId!: string;

  /** Position in the job's history (1, 2, ...), in the order the registry recorded the events. */
  @PrimaryColumn({ type: 'integer' })
  sequence!: number;

  /** Id of the bus message that carried the event; unique, so a redelivery cannot record it twice. */
  @Column({ name: 'message_id', type: 'text', unique: true })
  messageId!: string;

  @Column({ type: 'text' })
  name!: JobEventName;

  @Column({ type: 'timestamptz' })
  timestamp!: Date;

  @Column({ type: 'jsonb' })
  attributes!: Record<string, unknown>;
}
