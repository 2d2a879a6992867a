import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A message waiting to be published: written in the same transaction as the state change it
 * announces, so that a committed change is never left unannounced (transactional outbox).
 * Every service has this table in its own schema.
 */
@Entity({ name: 'outbox_messages' })
export class OutboxMessageEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  sequence!: string;

  @Column({ type: 'text', unique: true })
  id!: string;

  @Column({ type: 'text' })
  topic!: string;

  @Column({ type: 'text' })
  key!: string;

  @Column({ type: 'jsonb' })
  payload!: unknown;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt!: Date;

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt!: Date | null;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', default: () => 'now()' })
  nextAttemptAt!: Date;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  /** Set when the message was given up on (dead-lettered); it stays here with its reason. */
  @Column({ name: 'dead_at', type: 'timestamptz', nullable: true })
  deadAt!: Date | null;
}

/** Ids of messages a consumer group has handled, so that a redelivered message is handled once. */
@Entity({ name: 'processed_messages' })
export class ProcessedMessageEntity {
  @PrimaryColumn({ name: 'consumer_group', type: 'text' })
  consumerGroup!: string;

  @PrimaryColumn({ name: 'message_id', type: 'text' })
  messageId!: string;

  @Column({ name: 'processed_at', type: 'timestamptz', default: () => 'now()' })
  processedAt!: Date;
}

export const MESSAGING_ENTITIES = [OutboxMessageEntity, ProcessedMessageEntity];
