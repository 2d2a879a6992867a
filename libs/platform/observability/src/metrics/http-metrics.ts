import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Histogram } from 'prom-client';
import { MetricsRegistry } from './metrics-registry';

/** Requests that matched no route share one label value, so scanners cannot explode cardinality. */
const UNMATCHED_ROUTE = 'unmatched';

type HttpLabel = 'method' | 'route' | 'status_code';

/**
 * RED metrics for every HTTP response: rate, errors (by status code) and duration, labelled by the
 * route pattern (`/v2/accounts/:account_id/segments`), never the raw URL. Measured in Fastify's
 * `onResponse` hook, so requests that fail before Nest (body parsing, unknown routes) count too.
 */
@Injectable()
export class HttpMetrics implements OnModuleInit {
  private readonly duration: Histogram<HttpLabel>;

  constructor(
    registry: MetricsRegistry,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    this.duration = new Histogram<HttpLabel>({
      name: 'guidepost_http_request_duration_seconds',
      help: 'HTTP request duration by method, route pattern and status code',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      const route = request.is404 ? UNMATCHED_ROUTE : (request.routeOptions.url ?? UNMATCHED_ROUTE);
      this.duration.observe({ method: request.method, route, status_code: reply.statusCode }, reply.elapsedTime / 1000);
      done();
    });
  }
}
