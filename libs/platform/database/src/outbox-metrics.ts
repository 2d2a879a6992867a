import type { DataSource } from 'typeorm';
import { type MetricsRegistry, reportScrapedGauge } from '@guidepost/platform-observability';

interface Backlog {
  pending: string;
  oldest_age_seconds: number;
}

/**
 * The outbox backlog of a service's schema, read at every scrape: `guidepost_outbox_backlog_messages`
 * (messages written but not yet published) and `guidepost_outbox_oldest_message_age_seconds` (how long
 * the oldest of them has waited, 0 when none does). A backlog that grows or ages means the relay cannot
 * publish (Kafka is unreachable, or a lane is stuck) and everything downstream waits. Dead messages are
 * not pending: they are in `guidepost_dead_letters_waiting`.
 */
export function reportOutboxBacklog(registry: MetricsRegistry, schema: string, dataSource: DataSource): void {
  const backlog = async (): Promise<Backlog> => {
    const [row]: Backlog[] = await dataSource.query(
      `SELECT count(*) AS pending, coalesce(extract(epoch FROM now() - min(occurred_at)), 0)::float8 AS oldest_age_seconds
         FROM "${schema}".outbox_messages WHERE published_at IS NULL AND dead_at IS NULL`,
    );
    return row;
  };
  reportScrapedGauge(
    registry,
    { name: 'guidepost_outbox_backlog_messages', help: 'Outbox messages not yet published to the bus, by service', labelNames: [] },
    schema,
    async () => [{ labels: {}, value: Number((await backlog()).pending) }],
  );
  reportScrapedGauge(
    registry,
    {
      name: 'guidepost_outbox_oldest_message_age_seconds',
      help: 'How long the oldest outbox message not yet published has waited, by service (0 when none waits)',
      labelNames: [],
    },
    schema,
    async () => [{ labels: {}, value: Math.max(0, (await backlog()).oldest_age_seconds) }],
  );
}
