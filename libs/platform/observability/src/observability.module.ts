import { Global, type INestApplication, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { Logger, LoggerModule } from 'nestjs-pino';
import { AppConfig } from '@guidepost/platform-config';
import { DataSources } from './health/data-sources';
import { HealthController } from './health/health.controller';
import { ReadinessProbes } from './health/readiness-probes';
import { loggerParams } from './logging/logger-params';
import { RequestLog } from './logging/request-log';
import { HttpMetrics } from './metrics/http-metrics';
import { MetricsController } from './metrics/metrics.controller';
import { MetricsRegistry } from './metrics/metrics-registry';

/**
 * Structured logs (pino, one line per request with its request id), Prometheus metrics at
 * `GET /metrics` (Node defaults plus HTTP RED) and health probes at `GET /health/live` and
 * `GET /health/ready` (pings every TypeORM data source and runs every `ReadinessProbe` in the
 * app). Needs `AppConfig` (global).
 * `MetricsRegistry` is exported everywhere for modules that add their own metrics.
 */
@Global()
@Module({
  imports: [
    LoggerModule.forRootAsync({ inject: [AppConfig], useFactory: loggerParams }),
    // Failed checks reach the exception filter, which logs them; Terminus' own log would repeat them.
    TerminusModule.forRoot({ logger: false }),
    DiscoveryModule,
  ],
  controllers: [HealthController, MetricsController],
  providers: [MetricsRegistry, HttpMetrics, RequestLog, DataSources, ReadinessProbes],
  exports: [MetricsRegistry],
})
export class ObservabilityModule {}

/**
 * Routes Nest's own logging (start-up, exceptions, `new Logger(...)` in any class) through pino.
 * Create the app with `{ bufferLogs: true }` so that start-up lines are held until this is called.
 */
export function useStructuredLogger(app: INestApplication): void {
  app.useLogger(app.get(Logger));
}
