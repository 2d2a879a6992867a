import { type DynamicModule, Module, type Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { KafkaBusModule } from '@guidepost/platform-bus';
import { type ClickHouseServiceOptions, createClickHouseClient, migrateClickHouse } from '@guidepost/platform-clickhouse';
import { type AppConfig, ConfigurationError, loadConfig, PlatformConfigModule } from '@guidepost/platform-config';
import { DeadLetterRecorderModule, migrateServiceDatabase, type ServiceDatabaseOptions } from '@guidepost/platform-database';
import { InternalCallerHooks, PlatformHttpModule } from '@guidepost/platform-http';
import { ObservabilityModule } from '@guidepost/platform-observability';
import { createHttpApplication, listen } from './http-application';
import { runHost, stopGracefullyOnSignals } from './process-lifecycle';
import { ServedCertificate } from './served-certificate';
import { assertPortAvailable } from './startup-failure';

/** A setting a host cannot run without, by its environment variable. */
export type RequiredSetting = keyof typeof SETTING_PRESENT;

const SETTING_PRESENT = {
  GUIDEPOST_DATABASE_URL: (config: AppConfig) => config.databaseUrl !== undefined,
  GUIDEPOST_KAFKA_BROKERS: (config: AppConfig) => config.kafkaBrokers !== undefined,
  GUIDEPOST_INTERNAL_TOKEN: (config: AppConfig) => config.internalToken !== undefined,
  GUIDEPOST_CLICKHOUSE_URL: (config: AppConfig) => config.clickhouseUrl !== undefined,
  GUIDEPOST_S3_ENDPOINT: (config: AppConfig) => config.s3 !== undefined,
  GUIDEPOST_ADMIN_TOKEN: (config: AppConfig) => config.adminToken !== undefined,
  GUIDEPOST_CONTENT_SERVICE_URL: (config: AppConfig) => config.serviceUrls.content !== undefined,
  GUIDEPOST_SEGMENT_SERVICE_URL: (config: AppConfig) => config.serviceUrls.segment !== undefined,
  GUIDEPOST_PROFILE_SERVICE_URL: (config: AppConfig) => config.serviceUrls.profile !== undefined,
  GUIDEPOST_INGESTION_SERVICE_URL: (config: AppConfig) => config.serviceUrls.ingestion !== undefined,
} satisfies Record<string, (config: AppConfig) => boolean>;

/** Every process of the distributed shape keeps state, talks over Kafka and shares the internal credential. */
const ALWAYS_REQUIRED: readonly RequiredSetting[] = ['GUIDEPOST_DATABASE_URL', 'GUIDEPOST_KAFKA_BROKERS', 'GUIDEPOST_INTERNAL_TOKEN'];

export interface ServiceHostDefinition {
  readonly name: string;
  /** The modules this process carries, given its validated configuration. */
  readonly modules: (config: AppConfig) => (Type | DynamicModule)[];
  /** Settings this host needs besides the database, Kafka and the internal token. */
  readonly requires?: readonly RequiredSetting[];
  /** What `migrate` applies: the service's PostgreSQL schema, and its event store if it has one. */
  readonly storage: { readonly database: ServiceDatabaseOptions; readonly eventStore?: ClickHouseServiceOptions };
  /**
   * The gateway answers the public; every other host answers only callers that present the internal
   * credential (the gateway, other services), so it installs `InternalCallerHooks`. Only the public
   * host serves the admin API and `/metrics` on `GUIDEPOST_ADMIN_PORT` when it is set.
   */
  readonly publicFacing?: boolean;
  /** Runs before routes are registered (Fastify hooks such as the gateway's). */
  readonly beforeInit?: (app: NestFastifyApplication) => void;
  /** Hooks that judge a request before any credential is checked (`HttpApplicationOptions.beforeCredentials`). */
  readonly beforeCredentials?: (app: NestFastifyApplication) => void;
}

@Module({})
class ServiceHostModule {
  static forRoot(config: AppConfig, clientId: string, schema: string, modules: (Type | DynamicModule)[]): DynamicModule {
    return {
      module: ServiceHostModule,
      imports: [
        PlatformConfigModule.forRoot(config),
        ObservabilityModule,
        PlatformHttpModule,
        KafkaBusModule.forRoot({ clientId }),
        // What the consumers give up on is kept in the service's own schema, for the admin API.
        DeadLetterRecorderModule.forService(schema),
        ...modules,
      ],
    };
  }
}

/**
 * The entry point of a one-service process (the distributed shape). `node main.js` serves;
 * `node main.js migrate` applies the service's PostgreSQL and ClickHouse migrations and exits (the
 * release step where `GUIDEPOST_MIGRATE_ON_START=false`).
 */
export function runServiceHost(definition: ServiceHostDefinition): void {
  const command = process.argv[2] ?? 'serve';
  runHost(definition.name, async () => {
    const config = loadConfig();
    if (command === 'migrate') return migrate(definition, config);
    if (command !== 'serve') throw new ConfigurationError([`unknown command "${command}": use serve (the default) or migrate`]);
    return serve(definition, config);
  });
}

async function serve(definition: ServiceHostDefinition, config: AppConfig): Promise<void> {
  assertPresent(config, [...ALWAYS_REQUIRED, ...(definition.requires ?? [])]);
  await assertPortAvailable(config.host, config.port);
  // Only the gateway has an admin port: it calls the services' admin routes on their HTTP port.
  const adminPort = definition.publicFacing ? config.adminPort : undefined;
  if (adminPort !== undefined) await assertPortAvailable(config.host, adminPort);
  const certificate = config.tls && (await ServedCertificate.load(config.tls));
  const rootModule = ServiceHostModule.forRoot(
    config,
    kebabCase(definition.name),
    definition.storage.database.schema,
    definition.modules(config),
  );
  const app = await createHttpApplication(rootModule, config, {
    certificate,
    adminPort,
    beforeCredentials: definition.beforeCredentials,
    beforeInit: (created) => {
      if (!definition.publicFacing) created.get(InternalCallerHooks).install(created.getHttpAdapter().getInstance());
      definition.beforeInit?.(created);
    },
  });
  // In-flight requests finish, consumers commit and leave their groups, relays stop, the producer closes last.
  stopGracefullyOnSignals({ app, graceMs: config.shutdownGraceMs });
  try {
    await listen(app, config);
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
}

async function migrate(definition: ServiceHostDefinition, config: AppConfig): Promise<void> {
  const { database, eventStore } = definition.storage;
  assertPresent(config, ['GUIDEPOST_DATABASE_URL', ...(eventStore ? (['GUIDEPOST_CLICKHOUSE_URL'] as const) : [])]);
  const report = (line: string): boolean => process.stdout.write(`${definition.name}: ${line}\n`);
  const applied = await migrateServiceDatabase(config.databaseUrl!, database);
  report(applied.length ? `applied ${applied.join(', ')} to the ${database.schema} schema` : `the ${database.schema} schema is up to date`);
  if (eventStore) {
    const client = createClickHouseClient(config);
    try {
      await migrateClickHouse(client, eventStore.service, eventStore.migrations, { log: report });
    } finally {
      await client.close();
    }
    report('the event store is up to date');
  }
}

function assertPresent(config: AppConfig, settings: readonly RequiredSetting[]): void {
  const missing = settings.filter((setting) => !SETTING_PRESENT[setting](config));
  if (missing.length > 0) {
    throw new ConfigurationError(
      missing.map((setting) => `${setting}: is required by this service (only the standalone shape runs without it)`),
    );
  }
}

/** `IngestionService` → `ingestion-service`: how the brokers and logs name the process. */
function kebabCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}
