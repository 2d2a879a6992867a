import { Logger } from '@nestjs/common';
import { GatewayHttpHooks } from '@guidepost/gateway';
import { type AppConfig, loadConfig } from '@guidepost/platform-config';
import { startEmbeddedPostgres } from '@guidepost/platform-database';
import { createHttpApplication, runHost, stopGracefullyOnSignals } from '@guidepost/platform-host';
import { seedDemoAccount } from './demo';
import { withLocalSecrets } from './local-secrets';
import { StandaloneModule } from './standalone.module';

/** `npm start`: the whole API in one process on embedded defaults; nothing else to install. */
runHost('Standalone', async () => {
  const { config: configured, adminTokenGenerated } = await withLocalSecrets(loadConfig());
  const database = configured.databaseUrl
    ? undefined
    : await startEmbeddedPostgres(configured.dataDir, new Logger('EmbeddedPostgres'));
  const config = database ? configured.with({ databaseUrl: database.url }) : configured;

  const app = await createHttpApplication(StandaloneModule.forRoot(config), config, (created) =>
    created.get(GatewayHttpHooks).install(created.getHttpAdapter().getInstance()),
  );
  stopGracefullyOnSignals(async () => {
    await app.close();
    await database?.stop();
  });
  await app.listen(config.port, config.host);
  await announce(config, adminTokenGenerated);
});

async function announce(config: AppConfig, adminTokenGenerated: boolean): Promise<void> {
  const lines = [`Guidepost is serving the API at ${config.publicUrl}`, `OpenAPI document: ${config.publicUrl}/openapi.json`];
  if (adminTokenGenerated) {
    lines.push(`Admin token (generated, kept in ${config.dataDir}/secrets.json): ${config.adminToken}`);
  }
  if (config.demo) {
    const demo = await seedDemoAccount(config.publicUrl, config.adminToken!);
    lines.push(
      `Demo account '${demo.accountId}': key ${demo.key} secret ${demo.secret}`,
      `  curl -u ${demo.key}:${demo.secret} ${config.publicUrl}/v2/accounts/${demo.accountId}/flows`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
