import { type DynamicModule, Global, Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { type ConsumerDeadLetter, DeadLetterRecorder } from '@guidepost/platform-bus';
import { classifyFailure } from '@guidepost/platform-failures';

const COLUMNS = [
  'topic',
  'consumer_group',
  'message_id',
  'message_key',
  'payload',
  'raw_value',
  'headers',
  'occurred_at',
  'reason',
  'attempts',
  'source_partition',
  'source_offset',
  'failed_at',
];
const REPLACED = COLUMNS.filter((column) => !['topic', 'consumer_group', 'message_id'].includes(column));

/**
 * Keeps what the consumers of this process give up on in the `dead_letters` table of the service's
 * own schema (the distributed shape: one service per process). A dead letter recorded again (the
 * record was redelivered, or replayed and given up on again) replaces the row and waits again.
 */
export class PostgresDeadLetterRecorder extends DeadLetterRecorder {
  constructor(
    private readonly dataSource: DataSource,
    private readonly schema: string,
  ) {
    super();
  }

  async record(deadLetter: ConsumerDeadLetter): Promise<void> {
    try {
      await this.insert(valuesOf(deadLetter));
    } catch (error) {
      // PostgreSQL refuses some texts a record may carry (a NUL character in JSON or a header): kept
      // as escaped text instead, so that the operator still sees the dead letter.
      if (classifyFailure(error) !== 'permanent') throw error;
      await this.insert(valuesOf(asText(deadLetter)));
    }
  }

  private async insert(values: unknown[]): Promise<void> {
    const placeholders = values.map((_value, index) => `$${index + 1}`).join(', ');
    await this.dataSource.query(
      `INSERT INTO "${this.schema}".dead_letters (${COLUMNS.join(', ')}) VALUES (${placeholders})
       ON CONFLICT (topic, consumer_group, message_id)
       DO UPDATE SET ${REPLACED.map((column) => `${column} = EXCLUDED.${column}`).join(', ')}, replayed_at = NULL`,
      values,
    );
  }
}

function valuesOf(deadLetter: ConsumerDeadLetter): unknown[] {
  const occurredAt = deadLetter.occurredAt === undefined ? undefined : new Date(deadLetter.occurredAt);
  return [
    deadLetter.topic,
    deadLetter.group,
    deadLetter.messageId ?? null,
    deadLetter.key ?? null,
    deadLetter.payload === undefined ? null : JSON.stringify(deadLetter.payload),
    deadLetter.rawValue ?? null,
    JSON.stringify(deadLetter.headers),
    occurredAt === undefined || Number.isNaN(occurredAt.getTime()) ? null : occurredAt.toISOString(),
    deadLetter.reason,
    deadLetter.attempts,
    deadLetter.partition ?? null,
    deadLetter.offset ?? null,
    deadLetter.failedAt.toISOString(),
  ];
}

/**
 * The dead letter with its value as text (jsonb refuses `\u0000` in a string, text does not) and every
 * NUL character of its texts written `\u0000`.
 */
function asText(deadLetter: ConsumerDeadLetter): ConsumerDeadLetter {
  const escape = (text: string): string => text.replace(/\0/g, '\\u0000');
  const value = deadLetter.payload === undefined ? deadLetter.rawValue : JSON.stringify(deadLetter.payload);
  return {
    ...deadLetter,
    messageId: deadLetter.messageId === undefined ? undefined : escape(deadLetter.messageId),
    key: deadLetter.key === undefined ? undefined : escape(deadLetter.key),
    payload: undefined,
    rawValue: value === undefined ? undefined : escape(value),
    headers: Object.fromEntries(Object.entries(deadLetter.headers).map(([name, text]) => [escape(name), escape(text)])),
    reason: escape(deadLetter.reason),
  };
}

/**
 * Binds `DeadLetterRecorder` (which the Kafka bus's consumers use) to the service's own schema. The
 * distributed host imports it; the standalone shape has no consumer dead letters (its consumers run
 * inside the outbox relay's delivery, which dead-letters the message in the producer's outbox).
 */
@Global()
@Module({})
export class DeadLetterRecorderModule {
  static forService(schema: string): DynamicModule {
    return {
      module: DeadLetterRecorderModule,
      global: true,
      providers: [
        {
          provide: DeadLetterRecorder,
          inject: [getDataSourceToken(schema)],
          useFactory: (dataSource: DataSource) => new PostgresDeadLetterRecorder(dataSource, schema),
        },
      ],
      exports: [DeadLetterRecorder],
    };
  }
}
