import { Global, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { Type } from '@sinclair/typebox';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { defineTopic } from '@guidepost/contracts-events';
import { InProcessBusModule, MessageBus } from '@guidepost/platform-bus';
import { ConfigurationError, loadConfig, PlatformConfigModule } from '@guidepost/platform-config';
import { MetricsRegistry } from '@guidepost/platform-observability';
import { createDeadLetterTable } from './dead-letters/dead-letter-tables';
import { createMessagingRetentionIndexes, createMessagingTables } from './messaging-tables';
import { ServiceDatabaseModule, unitOfWorkToken } from './service-database.module';
import { openFreshDatabase, type FreshDatabase } from './testing';
import type { UnitOfWork } from './unit-of-work';

const SCHEMA = 'hosted';
const Noted = defineTopic('guidepost.test.noted.v1', 'note', Type.Object({ note: Type.String() }));

class CreateHostedTables1700000000000 implements MigrationInterface {
  readonly name = 'CreateHostedTables1700000000000';
  async up(queryRunner: QueryRunner): Promise<void> {
    await createMessagingTables(queryRunner, SCHEMA);
    await createDeadLetterTable(queryRunner, SCHEMA);
    await createMessagingRetentionIndexes(queryRunner, SCHEMA);
  }
  async down(): Promise<void> {}
}

@Global()
@Module({ providers: [MetricsRegistry], exports: [MetricsRegistry] })
class TestMetricsModule {}

/** A service's database module as a host wires it, on a database of its own, configured through the environment. */
function startService(environment: Record<string, string>): Promise<TestingModule> {
  return Test.createTestingModule({
    imports: [
      PlatformConfigModule.forRoot(loadConfig(environment)),
      TestMetricsModule,
      InProcessBusModule,
      ServiceDatabaseModule.forService({ schema: SCHEMA, entities: [], migrations: [CreateHostedTables1700000000000] }),
    ],
  })
    .compile()
    .then((app) => app.init());
}

describe('a service database as the host starts it', () => {
  let database: FreshDatabase;

  beforeAll(async () => {
    database = await openFreshDatabase();
  });

  afterAll(() => database?.drop());

  it('refuses a configured deduplication window shorter than an hour, naming the setting', () => {
    expect(() => loadConfig({ GUIDEPOST_MESSAGE_DEDUP_WINDOW_SECONDS: '60' })).toThrow(ConfigurationError);
    expect(() => loadConfig({ GUIDEPOST_MESSAGE_DEDUP_WINDOW_SECONDS: '60' })).toThrow(
      /GUIDEPOST_MESSAGE_DEDUP_WINDOW_SECONDS: must be >= 3600/,
    );
    expect(() => loadConfig({ GUIDEPOST_MESSAGE_PRUNE_INTERVAL_MS: 'soon' })).toThrow(
      /GUIDEPOST_MESSAGE_PRUNE_INTERVAL_MS: must be integer/,
    );
    expect(loadConfig({})).toMatchObject({ messageDedupWindowSeconds: 7 * 24 * 60 * 60, messagePruneIntervalMs: 600_000 });
  });

  it('migrates at start-up, then publishes what its unit of work commits and registers its gauges', async () => {
    const app = await startService({ GUIDEPOST_DATABASE_URL: database.url, GUIDEPOST_MESSAGE_PRUNE_INTERVAL_MS: '1000' });
    try {
      const received: string[] = [];
      app
        .get(MessageBus)
        .subscribe({ topic: Noted, group: 'notes', handle: (message) => Promise.resolve(void received.push(message.payload.note)) });
      await app.get<UnitOfWork>(unitOfWorkToken(SCHEMA)).run((tx) => Promise.resolve(tx.emit(Noted, 'note-1', { note: 'hello' })));
      for (let waited = 0; received.length === 0 && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(received).toEqual(['hello']);
      const metrics = await app.get(MetricsRegistry).metrics();
      expect(metrics).toContain(`guidepost_outbox_backlog_messages{service="${SCHEMA}"}`);
    } finally {
      await app.close();
    }
  });
});
