import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { MetricsRegistry } from '@guidepost/platform-observability';
import { createMessagingTables } from './messaging-tables';
import { reportOutboxBacklog } from './outbox-metrics';

const DATABASE_URL = process.env['GUIDEPOST_DATABASE_URL'] ?? '';
const SCHEMA = `outbox_metrics_${randomUUID().slice(0, 8)}`;

/** The value of a gauge without labels of its own (the `service` label only). */
async function gauge(registry: MetricsRegistry, name: string): Promise<number> {
  const line = (await registry.getSingleMetricAsString(name)).split('\n').find((text) => text.startsWith(`${name}{service="${SCHEMA}"}`));
  if (line === undefined) throw new Error(`no ${name} for ${SCHEMA}`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** The outbox backlog gauges against the real PostgreSQL, in a schema of the run's own. */
describe('the outbox backlog gauges', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await new DataSource({ type: 'postgres', url: DATABASE_URL }).initialize();
    await dataSource.query(`CREATE SCHEMA "${SCHEMA}"`);
    const runner = dataSource.createQueryRunner();
    await createMessagingTables(runner, SCHEMA);
    await runner.release();
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${SCHEMA}" CASCADE`);
    await dataSource.destroy();
  });

  it('count the messages not yet published and the age of the oldest at every scrape, leaving out published and dead ones', async () => {
    const registry = new MetricsRegistry();
    reportOutboxBacklog(registry, SCHEMA, dataSource);
    expect(await gauge(registry, 'guidepost_outbox_backlog_messages')).toBe(0);
    expect(await gauge(registry, 'guidepost_outbox_oldest_message_age_seconds')).toBe(0);

    const insert = (id: string, occurredSecondsAgo: number, state = '') =>
      dataSource.query(
        `INSERT INTO "${SCHEMA}".outbox_messages (id, topic, key, payload, occurred_at, published_at, dead_at)
         VALUES ($1, 't', 'k', '{}', now() - make_interval(secs => $2), ${state === 'published' ? 'now()' : 'NULL'}, ${state === 'dead' ? 'now()' : 'NULL'})`,
        [id, occurredSecondsAgo],
      );
    await insert('waiting-long', 120);
    await insert('waiting-now', 0);
    await insert('published', 600, 'published');
    await insert('dead', 900, 'dead');

    expect(await gauge(registry, 'guidepost_outbox_backlog_messages')).toBe(2);
    const oldest = await gauge(registry, 'guidepost_outbox_oldest_message_age_seconds');
    expect(oldest).toBeGreaterThanOrEqual(120);
    expect(oldest).toBeLessThan(600);
  });
});
