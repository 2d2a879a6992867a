import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';
import type { Params } from 'nestjs-pino';
import pino, { type Logger } from 'pino';
import type { AppConfig } from '@guidepost/platform-config';

/**
 * Credentials never reach the log: the Authorization header (Basic key:secret or the admin bearer
 * token) and any field named `secret` up to three levels deep (API key records, signing secrets).
 */
export const REDACTED_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'secret', '*.secret', '*.*.secret', '*.*.*.secret'];

/** The id of the request being handled, for every line logged meanwhile (`requestIdMixin`). */
const requestIds = new AsyncLocalStorage<string>();

/** One root logger per configuration, shared by `RequestLog` and Nest's logger (nestjs-pino). */
const rootLoggers = new WeakMap<AppConfig, Logger>();

/** The process's JSON logger (pino): every line, whoever writes it, goes through it and its redaction. */
export function rootLoggerOf(config: AppConfig): Logger {
  let logger = rootLoggers.get(config);
  if (logger === undefined) {
    logger = pino({ level: config.logLevel, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, mixin: requestIdMixin });
    rootLoggers.set(config, logger);
  }
  return logger;
}

/** What the root logger adds to each line: the id of the request being handled, if any. */
export function requestIdMixin(): object {
  const reqId = requestIds.getStore();
  return reqId === undefined ? {} : { reqId };
}

/**
 * Lines logged while a request is handled carry its id as `reqId` (Fastify's own id, taken from
 * `X-Request-Id` or generated, see `fastifyAdapterOptions`): a Fastify `onRequest` hook keeps the id
 * for the rest of the request, and the root logger adds it to each line it writes. Nothing is made
 * per request but that: a pino-http child logger per request serialised and redacted the whole
 * request each time (a tenth of the track route's CPU), and Nest middleware (which nestjs-pino would
 * add for its own per-request logger) costs the busiest route a few per cent more.
 */
export function keepRequestIds(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => requestIds.run(request.id, done));
}

/**
 * Nest's logger (nestjs-pino) writes through the root logger, without its per-request middleware
 * (`forRoutes` none: `keepRequestIds` gives lines their request id). The one line per request comes
 * from `RequestLog`, written from a Fastify hook, so that requests answered by Fastify hooks (the
 * gateway's authentication and throttling) are logged too.
 */
export function loggerParams(config: AppConfig): Params {
  return { pinoHttp: { logger: rootLoggerOf(config) }, forRoutes: [] };
}
