import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Level } from 'pino';
import { AppConfig } from '@guidepost/platform-config';
import { keepRequestIds, rootLoggerOf } from './logger-params';

/** Probe endpoints, polled every few seconds: their successes are logged at debug, not info. */
const PROBE_PATHS = new Set(['/health/live', '/health/ready', '/metrics']);

/**
 * One JSON line per HTTP response: request id, method, URL, status and duration. Written from
 * Fastify's `onResponse` hook, so requests answered before Nest (by content-type parsers, unknown
 * routes, or Fastify hooks such as the gateway's) are logged like any other.
 */
@Injectable()
export class RequestLog implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const logger = rootLoggerOf(this.config);
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    keepRequestIds(fastify);
    fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      logger[levelOf(request.url, reply.statusCode)](
        // Flat fields: pino-http's `req`/`res` serializers expect Node's request and response objects.
        {
          reqId: request.id,
          method: request.method,
          url: request.url,
          statusCode: reply.statusCode,
          responseTime: Math.round(reply.elapsedTime),
        },
        'request completed',
      );
      done();
    });
  }
}

function levelOf(url: string, statusCode: number): Level {
  if (statusCode >= 500) return 'error';
  const query = url.indexOf('?');
  return PROBE_PATHS.has(query === -1 ? url : url.slice(0, query)) ? 'debug' : 'info';
}
