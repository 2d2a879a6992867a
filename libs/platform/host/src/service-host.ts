import { type DynamicModule, Module, type Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { InProcessBusModule } from '@guidepost/platform-bus';
import { type AppConfig, loadConfig, PlatformConfigModule } from '@guidepost/platform-config';
import { PlatformHttpModule } from '@guidepost/platform-http';
import { ObservabilityModule } from '@guidepost/platform-observability';
import { createHttpApplication } from './http-application';
import { runHost, stopGracefullyOnSignals } from './process-lifecycle';

@Module({})
class ServiceHostModule {
  static forRoot(config: AppConfig, serviceModules: Type[]): DynamicModule {
    return {
      module: ServiceHostModule,
      imports: [PlatformConfigModule.forRoot(config), ObservabilityModule, PlatformHttpModule, InProcessBusModule, ...serviceModules],
    };
  }
}

/**
 * The entry point of a one-service host (the distributed shape): the service's modules with the
 * platform around them, against the PostgreSQL named by `GUIDEPOST_DATABASE_URL`.
 */
export function runServiceHost(
  name: string,
  serviceModules: Type[],
  beforeInit?: (app: NestFastifyApplication) => void,
): void {
  runHost(name, async () => {
    const config = loadConfig();
    if (!config.databaseUrl) throw new Error(`${name} needs GUIDEPOST_DATABASE_URL (only the standalone host embeds PostgreSQL)`);
    const app = await createHttpApplication(ServiceHostModule.forRoot(config, serviceModules), config, beforeInit);
    stopGracefullyOnSignals(() => app.close());
    await app.listen(config.port, config.host);
  });
}
