import type { Params } from 'nestjs-pino';
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

/**
 * JSON logs through pino. The request middleware only gives each request its child logger, so lines
 * logged while handling it carry its id as `reqId` (Fastify's own id, taken from `X-Request-Id` or
 * generated, see `fastifyAdapterOptions`). The one line per request comes from `RequestLog` instead:
 * Nest middleware never runs for requests that Fastify hooks registered before `app.init()` (the
 * gateway's authentication and throttling) answer, and those must be logged too.
 */
export function loggerParams(config: AppConfig): Params {
  return {
    pinoHttp: {
      level: config.logLevel,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      quietReqLogger: true,
      autoLogging: false,
    },
  };
}
