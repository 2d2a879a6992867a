import 'reflect-metadata';
import { Server as TlsServer } from 'node:tls';
import { type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger as PinoLogger } from 'nestjs-pino';
import type { AppConfig } from '@guidepost/platform-config';
import { configureHttpServer, fastifyAdapterOptions } from '@guidepost/platform-http';
import { AdminPort } from './admin-port';
import { ShutdownReadiness } from './graceful-shutdown';
import type { ServedCertificate } from './served-certificate';

/** The admin port of each application that has one (`GUIDEPOST_ADMIN_PORT`), opened by `listen`. */
const adminPorts = new WeakMap<NestFastifyApplication, AdminPort>();

/** The host's own providers around the root module: the readiness that turns 503 when a stop begins. */
@Module({})
class HostModule {
  static around(rootModule: DynamicModule, shutdown: ShutdownReadiness): DynamicModule {
    return { module: HostModule, imports: [rootModule], providers: [{ provide: ShutdownReadiness, useValue: shutdown }] };
  }
}

export interface HttpApplicationOptions {
  /** Runs before routes are registered (Fastify hooks such as the gateway's go there). */
  readonly beforeInit?: (app: NestFastifyApplication) => void;
  /** Installs hooks that judge a request before any credential is checked (the gateway's throttle of failed authentication). */
  readonly beforeCredentials?: (app: NestFastifyApplication) => void;
  /** Serve HTTPS with this certificate, renewed while the application runs; plain HTTP otherwise. */
  readonly certificate?: ServedCertificate;
  /**
   * A port of their own for the admin API and `/metrics` (the gateway's `GUIDEPOST_ADMIN_PORT`,
   * `AdminPort`), served by the same server; open both ports with `listen`.
   */
  readonly adminPort?: number;
}

/**
 * Creates a host's Nest application on Fastify with the platform's HTTP conventions applied. Nest's
 * own body parsers stay off: the platform registers exactly the content types the API accepts.
 *
 * A failure while the modules start is rethrown to the host (which prints one line) rather than
 * logged with its stack by Nest, whose buffered start-up logs are printed only once the structured
 * logger is in place. While the process stops (`shutDown`), requests that arrive on a connection that
 * is still open are served as usual, not refused with Fastify's 503 (`return503OnClosing: false`).
 */
export async function createHttpApplication(
  rootModule: DynamicModule,
  config: AppConfig,
  { beforeInit, beforeCredentials, certificate, adminPort }: HttpApplicationOptions = {},
): Promise<NestFastifyApplication> {
  const shutdown = new ShutdownReadiness();
  const app = await NestFactory.create<NestFastifyApplication>(
    HostModule.around(rootModule, shutdown),
    fastifyAdapter(config, certificate),
    {
      bodyParser: false,
      bufferLogs: true,
      autoFlushLogs: false,
      abortOnError: false,
    },
  );
  app.useLogger(app.get(PinoLogger));
  app.flushLogs();
  const fastify = app.getHttpAdapter().getInstance();
  await configureHttpServer(app, config, {
    beforeCredentials: () => {
      // The HTTP port answers an admin route as an unknown one, with or without credentials.
      if (adminPort !== undefined) {
        const port = new AdminPort(adminPort);
        port.install(fastify);
        adminPorts.set(app, port);
      }
      beforeCredentials?.(app);
    },
  });
  shutdown.install(fastify);
  if (certificate) {
    certificate.renewOn(tlsServerOf(app));
    fastify.addHook('onClose', () => certificate.stop());
  }
  beforeInit?.(app);
  await app.init();
  return app;
}

/** Opens the application's HTTP port (`GUIDEPOST_PORT`) and, when it has one, its admin port, on the same interface. */
export async function listen(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  await app.listen(config.port, config.host);
  await adminPorts.get(app)?.listen(config.host, app.getHttpServer());
}

/** Where the application's admin port listens, when it has one and it is open. */
export function adminAddressOf(app: NestFastifyApplication): { port: number } | undefined {
  return adminPorts.get(app)?.address();
}

function fastifyAdapter(config: AppConfig, certificate: ServedCertificate | undefined): FastifyAdapter {
  const options = { ...fastifyAdapterOptions(config), return503OnClosing: false };
  if (!certificate) return new FastifyAdapter(options);
  // Fastify hands `https` to `https.createServer` instead of `http`, so the HTTP server's own limits
  // (header size, header and request timeouts) must come with the certificate or be lost.
  return new FastifyAdapter({ ...options, https: { ...options.http, ...certificate.pair } });
}

/** The server Fastify made from the `https` options, which Nest types as the plain HTTP server it makes by default. */
function tlsServerOf(app: NestFastifyApplication): TlsServer {
  const server: unknown = app.getHttpServer();
  if (server instanceof TlsServer) return server;
  throw new Error('the HTTP server was made without TLS');
}
