import 'reflect-metadata';
import type { DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger as PinoLogger } from 'nestjs-pino';
import type { AppConfig } from '@guidepost/platform-config';
import { configureHttpServer, fastifyAdapterOptions } from '@guidepost/platform-http';

/**
 * Creates a host's Nest application on Fastify with the platform's HTTP conventions applied. Nest's
 * own body parsers stay off: the platform registers exactly the content types the API accepts.
 * `beforeInit` runs before routes are registered (Fastify hooks such as the gateway's go there).
 */
export async function createHttpApplication(
  rootModule: DynamicModule,
  config: AppConfig,
  beforeInit?: (app: NestFastifyApplication) => void,
): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(
    rootModule,
    new FastifyAdapter(fastifyAdapterOptions(config)),
    { bodyParser: false, bufferLogs: true },
  );
  app.useLogger(app.get(PinoLogger));
  await configureHttpServer(app, config);
  beforeInit?.(app);
  await app.init();
  return app;
}
