import type { Params } from 'nestjs-pino';
import pino, { type Logger } from 'pino';
import type { AppConfig } from '@guidepost/platform-config';

/**
 * Credentials never reach the log: the Authorization header (Basic key:secret or the admin bearer
 * token) and any field named `secret` up to three levels deep (API key records, signing secrets).
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'secret',
  '*.secret',
  '*.*.secret',
  '*.*.*.secret',
];

/** One root logger per configuration, shared by Fastify (see `fastifyAdapterOptions`) and Nest's logger. */
const rootLoggers = new WeakMap<AppConfig, Logger>();

/** The process's JSON logger (pino): every line, whoever writes it, goes through it and its redaction. */
export function rootLoggerOf(config: AppConfig): Logger {
  let logger = rootLoggers.get(config);
  if (logger === undefined) {
    logger = pino({ level: config.logLevel, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
    rootLoggers.set(config, logger);
  }
  return logger;
}

/**
 * JSON logs through pino. Lines logged while a request is handled carry its id as `reqId` (Fastify's
 * own id, taken from `X-Request-Id` or generated, see `fastifyAdapterOptions`): they go through
 * Fastify's own request logger (`useExisting`), a child of the root logger that Fastify creates for
 * every request anyway, instead of a pino-http child per request, which serialised and redacted the
 * whole request each time (a tenth of the track route's CPU). The one line per request comes from
 * `RequestLog`: Nest middleware never runs for requests that Fastify hooks registered before
 * `app.init()` (the gateway's authentication and throttling) answer, and those must be logged too.
 */
export function loggerParams(config: AppConfig): Params {
  return { pinoHttp: { logger: rootLoggerOf(config) }, useExisting: true };
}
