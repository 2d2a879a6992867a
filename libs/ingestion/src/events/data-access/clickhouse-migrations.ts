import type { ClickHouseMigration } from '@guidepost/platform-clickhouse';

/**
 * The event store's tables. `events` is a ReplacingMergeTree whose sorting key ends with the event id:
 * ids are deterministic upstream, so a replayed batch writes rows identical to the first and merges
 * collapse them; reads that must be exact add `FINAL`. Partitions are months of event time (exports
 * read a time range); a user's history is a range of the sorting key.
 *
 * In order; a new migration is appended, never inserted. Statements must be safe to run twice.
 */
export const EVENT_STORE_MIGRATIONS: readonly ClickHouseMigration[] = [
  {
    version: 1,
    name: 'create events',
    statements: [
      `CREATE TABLE IF NOT EXISTS events (
        account_id String,
        event_id String,
        user_id String COMMENT 'empty for an event of a group only',
        group_id String DEFAULT '' COMMENT 'empty when the event names no group',
        name String,
        timestamp DateTime64(3, 'UTC'),
        attributes String COMMENT 'compact JSON object text',
        context_url Nullable(String),
        received_at DateTime64(3, 'UTC')
      )
      ENGINE = ReplacingMergeTree
      PARTITION BY toYYYYMM(timestamp)
      ORDER BY (account_id, user_id, timestamp, event_id)`,
    ],
  },
];
