import {
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { ClickHouseClient } from '@clickhouse/client';
import { AppConfig } from '@guidepost/platform-config';
import { createClickHouseClient } from './clickhouse-client';
import { EventStoreProbe } from './event-store.probe';
import type { ClickHouseMigration } from './migrations/clickhouse-migration';
import { migrateClickHouse, pendingClickHouseMigrations } from './migrations/migrate-clickhouse';

export interface ClickHouseServiceOptions {
  /** The service owning the migrations, as recorded in `schema_migrations`. */
  readonly service: string;
  readonly migrations: readonly ClickHouseMigration[];
}

/** Closes the client when the application stops; global modules stop last, after the consumers. */
@Injectable()
class ClickHouseLifecycle implements OnApplicationShutdown {
  constructor(private readonly client: ClickHouseClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}

const SERVICE_OPTIONS = 'ClickHouseServiceOptions';

/** Runs in the service module's initialisation, which Nest completes before the service's own. */
@Injectable()
class ClickHouseMigrations implements OnModuleInit {
  constructor(
    private readonly client: ClickHouseClient,
    private readonly config: AppConfig,
    @Inject(SERVICE_OPTIONS) private readonly options: ClickHouseServiceOptions,
  ) {}

  async onModuleInit(): Promise<void> {
    const { service, migrations } = this.options;
    if (this.config.migrateOnStart) {
      await migrateClickHouse(this.client, service, migrations, new Logger(`ClickHouseMigrations(${service})`));
      return;
    }
    // A release step migrates; refuse to run against an event store that lacks this build's tables.
    const pending = await pendingClickHouseMigrations(this.client, service, migrations);
    if (pending.length > 0) {
      throw new Error(
        `the ${service} event store has ${pending.length} pending ClickHouse migrations: run the service's \`migrate\` command first`,
      );
    }
  }
}

@Module({})
class ClickHouseServiceModule {}

/**
 * The event store's ClickHouse, for the whole process: provides `ClickHouseClient` everywhere (see
 * `createClickHouseClient`) and its readiness probe (`event-store`). Hosts import it once; services
 * add their schema with `ClickHouseModule.forService`. Needs `AppConfig` (global).
 */
@Global()
@Module({
  providers: [{ provide: ClickHouseClient, inject: [AppConfig], useFactory: createClickHouseClient }, ClickHouseLifecycle, EventStoreProbe],
  exports: [ClickHouseClient],
})
export class ClickHouseModule {
  /** A service's ClickHouse migrations, applied at start-up before its consumers and routes run. */
  static forService(options: ClickHouseServiceOptions): DynamicModule {
    // The options are a value, so each service's module is its own (Nest tells dynamic modules apart by their metadata).
    return { module: ClickHouseServiceModule, providers: [{ provide: SERVICE_OPTIONS, useValue: options }, ClickHouseMigrations] };
  }
}
