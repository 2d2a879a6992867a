import { type DynamicModule, Inject, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type DataSourceOptions, type MixedList, type EntitySchema } from 'typeorm';
import { AppConfig } from '@guidepost/platform-config';
import { MessageBus } from '@guidepost/platform-bus';
import { MetricsRegistry } from '@guidepost/platform-observability';
import { reportWaitingDeadLetters } from './dead-letters/dead-letter-metrics';
import { DeadLetterStore } from './dead-letters/dead-letter-store';
import { deadLettersControllerFor, deadLetterStoreToken } from './dead-letters/dead-letters.controller';
import { MESSAGING_ENTITIES } from './messaging.entities';
import { MessagingRetention } from './messaging-retention';
import { reportOutboxBacklog } from './outbox-metrics';
import { OutboxRelay } from './outbox-relay';
import { UnitOfWork } from './unit-of-work';

export interface ServiceDatabaseOptions {
  /** The service's PostgreSQL schema; also the name of its TypeORM data source. */
  readonly schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- TypeORM's own entity list type
  readonly entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- TypeORM's own migration list type
  readonly migrations: MixedList<Function | string>;
}

export const unitOfWorkToken = (schema: string): string => `UnitOfWork:${schema}`;
const relayToken = (schema: string): string => `OutboxRelay:${schema}`;
const outboxBacklogToken = (schema: string): string => `OutboxBacklog:${schema}`;
const retentionToken = (schema: string): string => `MessagingRetention:${schema}`;

/** Injects the `UnitOfWork` of the named service schema. */
export const InjectUnitOfWork = (schema: string): ParameterDecorator => Inject(unitOfWorkToken(schema));

/**
 * Applies a service's pending migrations to its own schema: connects, migrates and disconnects, and
 * returns the names of the migrations applied. Migrations are the only way tables are made, in every
 * shape; the migration command and start-up both call this. Its connection has no wait limit: a
 * migration may rightly take minutes.
 */
export async function migrateServiceDatabase(databaseUrl: string, options: ServiceDatabaseOptions): Promise<string[]> {
  const dataSource = await new DataSource(dataSourceOptions(databaseUrl, options)).initialize();
  try {
    await dataSource.query(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * Where a release step migrates (GUIDEPOST_MIGRATE_ON_START=false), a service refuses to start on a
 * schema that lacks migrations it was built with, instead of failing later on a missing table.
 */
async function assertSchemaIsCurrent(dataSource: DataSource, schema: string): Promise<void> {
  if (await dataSource.showMigrations()) {
    throw new Error(`the ${schema} schema has pending migrations: run the service's \`migrate\` command first`);
  }
}

/**
 * `waitLimitMs`, when given, bounds each wait on the server (a query's answer, a connection): a frozen
 * or partitioned PostgreSQL then fails the call (`Query read timeout`, a transient failure: 503 with
 * `Retry-After`) instead of holding the request until the client gives up.
 */
function dataSourceOptions(databaseUrl: string, options: ServiceDatabaseOptions, waitLimitMs?: number): DataSourceOptions {
  return {
    name: options.schema,
    type: 'postgres',
    url: databaseUrl,
    schema: options.schema,
    entities: [...(options.entities as []), ...MESSAGING_ENTITIES],
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    applicationName: `guidepost-${options.schema}`,
    poolSize: 10,
    extra: waitLimitMs === undefined ? {} : { query_timeout: waitLimitMs, connectionTimeoutMillis: waitLimitMs, keepAlive: true },
  };
}

/**
 * One service's database: a TypeORM data source bound to the service's own schema (a service never
 * reads another's tables), its migrations, its unit of work, its outbox relay, and its dead letters
 * (the admin API at `/admin/v1/dead-letters/<schema>` and the `guidepost_dead_letters_waiting` gauge), the
 * gauges of its outbox backlog, and the pruning of its messaging tables past the deduplication window.
 */
@Module({})
export class ServiceDatabaseModule {
  static forService(options: ServiceDatabaseOptions): DynamicModule {
    const { schema } = options;
    const root = TypeOrmModule.forRootAsync({
      name: schema,
      inject: [AppConfig],
      useFactory: (config: AppConfig): DataSourceOptions & { migrateOnStart: boolean } => {
        if (!config.databaseUrl) throw new Error('GUIDEPOST_DATABASE_URL is not set and no embedded database was started');
        return { ...dataSourceOptions(config.databaseUrl, options, config.dependencyTimeoutMs), migrateOnStart: config.migrateOnStart };
      },
      dataSourceFactory: async (factoryOptions) => {
        const { migrateOnStart, ...connection } = factoryOptions as DataSourceOptions & { migrateOnStart: boolean };
        if (migrateOnStart) await migrateServiceDatabase((connection as { url: string }).url, options);
        const dataSource = await new DataSource(connection).initialize();
        if (!migrateOnStart) await assertSchemaIsCurrent(dataSource, schema);
        return dataSource;
      },
    });
    return {
      module: ServiceDatabaseModule,
      imports: [root, TypeOrmModule.forFeature(options.entities as [], schema)],
      controllers: [deadLettersControllerFor(schema)],
      providers: [
        {
          provide: relayToken(schema),
          inject: [getDataSourceToken(schema), MessageBus],
          useFactory: (dataSource: DataSource, bus: MessageBus) => new OutboxRelay(dataSource, bus, schema),
        },
        {
          provide: unitOfWorkToken(schema),
          inject: [getDataSourceToken(schema), relayToken(schema)],
          useFactory: (dataSource: DataSource, relay: OutboxRelay) => new UnitOfWork(dataSource, () => relay.nudge()),
        },
        { provide: RelayLifecycle, inject: [relayToken(schema)], useFactory: (relay: OutboxRelay) => new RelayLifecycle(relay) },
        {
          // The backlog gauges, read at every scrape: nothing injects this provider, it only registers them.
          provide: outboxBacklogToken(schema),
          inject: [getDataSourceToken(schema), { token: MetricsRegistry, optional: true }],
          useFactory: (dataSource: DataSource, registry: MetricsRegistry | undefined) => {
            if (registry) reportOutboxBacklog(registry, schema, dataSource);
            return schema;
          },
        },
        {
          provide: retentionToken(schema),
          inject: [getDataSourceToken(schema), AppConfig, { token: MetricsRegistry, optional: true }],
          useFactory: (dataSource: DataSource, config: AppConfig, registry: MetricsRegistry | undefined) =>
            new MessagingRetention(
              dataSource,
              schema,
              { windowSeconds: config.messageDedupWindowSeconds, intervalMs: config.messagePruneIntervalMs },
              registry,
            ),
        },
        {
          provide: deadLetterStoreToken(schema),
          inject: [getDataSourceToken(schema), MessageBus, relayToken(schema), { token: MetricsRegistry, optional: true }],
          useFactory: (dataSource: DataSource, bus: MessageBus, relay: OutboxRelay, registry: MetricsRegistry | undefined) => {
            const store = new DeadLetterStore(dataSource, bus, schema, () => relay.nudge());
            if (registry) reportWaitingDeadLetters(registry, schema, () => store.waitingCounts());
            return store;
          },
        },
      ],
      exports: [TypeOrmModule, unitOfWorkToken(schema)],
    };
  }
}

/** Starts the relay once the whole application is wired, and stops it before connections close. */
class RelayLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(private readonly relay: OutboxRelay) {}

  onApplicationBootstrap(): void {
    this.relay.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.relay.stop();
  }
}
