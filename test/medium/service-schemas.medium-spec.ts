import { DataSource } from 'typeorm';
import { IngestionFilteringRulesChanged, type PayloadOf } from '@guidepost/contracts-events';
import { CONTENT_DATABASE } from '@guidepost/content';
import { GATEWAY_DATABASE } from '@guidepost/gateway';
import { INGESTION_DATABASE } from '@guidepost/ingestion';
import { FilteringRulesCopy, type ServiceDatabaseOptions } from '@guidepost/platform-database';
import { openServiceDatabase, type OpenServiceDatabase } from '@guidepost/platform-database/testing';
import { PROFILE_DATABASE } from '@guidepost/profile';
import { SEGMENT_DATABASE } from '@guidepost/segment';

const SERVICES: readonly ServiceDatabaseOptions[] = [
  GATEWAY_DATABASE,
  CONTENT_DATABASE,
  SEGMENT_DATABASE,
  PROFILE_DATABASE,
  INGESTION_DATABASE,
];

async function indexesOf(dataSource: DataSource, schema: string): Promise<string[]> {
  const rows: { indexname: string }[] = await dataSource.query(
    `SELECT indexname FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname`,
    [schema],
  );
  return rows.map((row) => row.indexname);
}

async function tablesOf(dataSource: DataSource, schema: string): Promise<string[]> {
  const rows: { tablename: string }[] = await dataSource.query(`SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename`, [
    schema,
  ]);
  return rows.map((row) => row.tablename);
}

/** Every service's PostgreSQL migrations, as start-up and the `migrate` command run them, on an empty database. */
describe.each(SERVICES.map((service) => [service.schema, service] as const))('the %s schema', (schema, service) => {
  let database: OpenServiceDatabase;

  beforeAll(async () => {
    database = await openServiceDatabase(service);
  });

  afterAll(() => database?.release());

  it('is made by its migrations with the messaging tables and the indexes that prune them', async () => {
    expect(await tablesOf(database.dataSource, schema)).toEqual(
      expect.arrayContaining(['dead_letters', 'migrations', 'outbox_messages', 'processed_messages']),
    );
    expect(await indexesOf(database.dataSource, schema)).toEqual(
      expect.arrayContaining(['dead_letters_replayed', 'outbox_messages_pending', 'outbox_messages_published', 'processed_messages_age']),
    );
  });

  it('undoes every migration down to an empty schema, and applies them all again', async () => {
    const migrating = await new DataSource({
      type: 'postgres',
      url: database.url,
      schema,
      migrations: service.migrations,
      migrationsTableName: 'migrations',
    }).initialize();
    try {
      for (let undone = 0; undone < (service.migrations as unknown[]).length; undone += 1)
        await migrating.undoLastMigration({ transaction: 'each' });
      expect(await tablesOf(migrating, schema)).toEqual(['migrations']);
      expect(await migrating.runMigrations({ transaction: 'each' })).toHaveLength((service.migrations as unknown[]).length);
      expect(await migrating.showMigrations()).toBe(false);
    } finally {
      await migrating.destroy();
    }
  });
});

/**
 * The services that apply the ingestion filtering rules keep a copy of them (`FilteringRulesCopy`) in a
 * table their migrations make; announcements may arrive out of order, and an older one never undoes a
 * newer change.
 */
describe.each([
  ['profile', PROFILE_DATABASE, 'profile.ingestion_filtering_rules'],
  ['ingestion', INGESTION_DATABASE, 'ingestion.filtering_rules'],
] as const)('the %s service copy of the filtering rules', (_name, service, table) => {
  let database: OpenServiceDatabase;
  const copy = new FilteringRulesCopy(table);
  const announced = (updatedAt: string, eventNames: string[]): PayloadOf<typeof IngestionFilteringRulesChanged> => ({
    accountId: 'account-1',
    mode: 'deny',
    eventNames,
    userProperties: ['email'],
    groupProperties: [],
    updatedAt,
  });

  beforeAll(async () => {
    database = await openServiceDatabase(service);
  });

  afterAll(() => database?.release());

  it('knows no rules of an account that never set any', async () => {
    expect(await copy.find(database.dataSource.manager, 'account-unknown')).toBeNull();
  });

  it('keeps the newest announcement whatever the order they arrive in', async () => {
    const { manager } = database.dataSource;
    await copy.keepNewest(manager, announced('2026-01-02T00:00:00.000Z', ['newer']));
    await copy.keepNewest(manager, announced('2026-01-01T00:00:00.000Z', ['older']));
    expect(await copy.find(manager, 'account-1')).toEqual({
      mode: 'deny',
      eventNames: ['newer'],
      userProperties: ['email'],
      groupProperties: [],
    });
    await copy.keepNewest(manager, announced('2026-01-03T00:00:00.000Z', []));
    expect((await copy.find(manager, 'account-1'))?.eventNames).toEqual([]);
  });
});
