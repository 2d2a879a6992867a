import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { GatewayHttpHooks } from '@guidepost/gateway';
import { type AppConfig, loadConfig } from '@guidepost/platform-config';
import { type EmbeddedClickHouse, startEmbeddedClickHouse } from '@guidepost/platform-chdb-server';
import { startEmbeddedPostgres } from '@guidepost/platform-database';
import { assertPortAvailable, createHttpApplication, runHost, ServedCertificate, stopGracefullyOnSignals } from '@guidepost/platform-host';
import { startDemo } from './demo';
import { inProcessFetch } from './in-process-fetch';
import { withLocalSecrets } from './local-secrets';
import { makeDataFolderPrivate } from './private-data-folder';
import { StandaloneModule } from './standalone.module';
import { writeToTerminal } from './terminal';

/**
 * `npm start`: the whole API in one process on embedded defaults; nothing else to install. A start
 * that fails prints one line (what is wrong, how to fix it) and stops whatever it had started; a
 * SIGTERM or SIGINT stops the process in order: the application, the event store's engine process,
 * the embedded PostgreSQL last (`shutDown`).
 */
runHost('Guidepost', async () => {
  const loaded = loadConfig();
  // Before anything is started that would have to be undone.
  await assertPortAvailable(loaded.host, loaded.port);
  const certificate = loaded.tls && (await ServedCertificate.load(loaded.tls));
  await makeDataFolderPrivate(loaded.dataDir, new Logger('DataFolder'));
  const { config: configured, adminTokenGenerated } = await withLocalSecrets(loaded);
  const stores = await startEmbeddedStores(configured);
  const config = configured.with({ databaseUrl: stores.databaseUrl, clickhouseUrl: stores.clickhouseUrl });

  let app: NestFastifyApplication | undefined;
  try {
    app = await createHttpApplication(StandaloneModule.forRoot(config), config, {
      certificate,
      beforeCredentials: (created) => created.get(GatewayHttpHooks).installBeforeCredentials(created.getHttpAdapter().getInstance()),
      beforeInit: (created) => created.get(GatewayHttpHooks).install(created.getHttpAdapter().getInstance()),
    });
    stopGracefullyOnSignals({ app, graceMs: config.shutdownGraceMs, afterApplication: () => stores.stop() });
    await app.listen(config.port, config.host);
  } catch (error) {
    await app?.close().catch(() => undefined);
    await stores.stop();
    throw error;
  }
  await announce(app, config, adminTokenGenerated);
});

interface EmbeddedStores {
  readonly databaseUrl: string | undefined;
  readonly clickhouseUrl: string | undefined;
  /** Stops what was started here, once the application (the stores' only user) has stopped: the event store, then PostgreSQL. */
  stop(): Promise<void>;
}

/** The stores whose URLs are not configured: an embedded PostgreSQL, and the ClickHouse engine in a process of its own. */
async function startEmbeddedStores(config: AppConfig): Promise<EmbeddedStores> {
  const database = config.databaseUrl ? undefined : await startEmbeddedPostgres(config.dataDir, new Logger('EmbeddedPostgres'));
  let eventStore: EmbeddedClickHouse | undefined;
  try {
    eventStore = config.clickhouseUrl
      ? undefined
      : await startEmbeddedClickHouse({
          path: join(config.dataDir, 'clickhouse'),
          memoryBytes: config.clickhouseEngineMemoryBytes,
          logger: new Logger('EventStore'),
        });
  } catch (error) {
    await database?.stop();
    throw error;
  }
  return {
    databaseUrl: database?.url ?? config.databaseUrl,
    clickhouseUrl: eventStore?.url ?? config.clickhouseUrl,
    stop: async () => {
      await eventStore?.stop();
      await database?.stop();
    },
  };
}

async function announce(app: NestFastifyApplication, config: AppConfig, adminTokenGenerated: boolean): Promise<void> {
  const lines = [`Guidepost is serving the API at ${config.defaultPublicUrl}`, `OpenAPI document: ${config.defaultPublicUrl}/openapi.json`];
  if (adminTokenGenerated) {
    lines.push(`Admin token (generated, kept in ${config.dataDir}/secrets.json): ${config.adminToken}`);
  }
  const demo = config.demo ? await startDemo(config.defaultPublicUrl, config.adminToken!, config.dataDir, inProcessFetch(app)) : undefined;
  process.stdout.write(`${[...lines, ...(demo?.lines ?? [])].join('\n')}\n`);
  if (demo !== undefined && demo.terminalLines.length > 0) writeToTerminal(demo.terminalLines);
}
