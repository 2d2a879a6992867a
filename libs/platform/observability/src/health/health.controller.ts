import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import {
  HealthCheck,
  type HealthCheckResult,
  HealthCheckService,
  type HealthIndicatorResult,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { Gauge } from 'prom-client';
import { MetricsRegistry } from '../metrics/metrics-registry';
import { DataSources } from './data-sources';
import type { ReadinessProbe } from './readiness-probe';
import { ReadinessProbes } from './readiness-probes';

/** How long a dependency may take to answer (a database's `SELECT 1`, a probe) before the service counts as not ready. */
const PING_TIMEOUT_MS = 2000;

/** Kubernetes-style probes. Unauthenticated: they reveal only up or down, and which dependency. */
@Controller('health')
export class HealthController {
  /** The last readiness answer, for the alert on a process that stays unready (the orchestrator's probes keep it current). */
  private readonly readyGauge: Gauge;

  constructor(
    private readonly health: HealthCheckService,
    private readonly typeOrm: TypeOrmHealthIndicator,
    private readonly dataSources: DataSources,
    private readonly probes: ReadinessProbes,
    private readonly indicators: HealthIndicatorService,
    registry: MetricsRegistry,
  ) {
    this.readyGauge = new Gauge({
      name: 'guidepost_ready',
      help: '1 when the last readiness check (GET /health/ready) passed, 0 when it failed; absent before the first one',
      registers: [registry],
    });
  }

  /** The process is up and serving HTTP. */
  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /** Every database and other dependency (readiness probe) this process uses answers; 503 naming the ones that do not. */
  @Get('ready')
  @HealthCheck()
  async ready(): Promise<HealthCheckResult> {
    const pings = [
      ...this.dataSources.all().map(
        ({ name, dataSource }) =>
          () =>
            this.typeOrm.pingCheck(name, { connection: dataSource, timeout: PING_TIMEOUT_MS }),
      ),
      ...this.probes.all().map((probe) => () => this.probe(probe)),
    ];
    try {
      const result = await this.health.check(pings);
      this.readyGauge.set(1);
      return result;
    } catch (error) {
      this.readyGauge.set(0);
      if (error instanceof ServiceUnavailableException) throw new ServiceUnavailableException(`not ready: ${failuresOf(error)}`);
      throw error;
    }
  }

  /** Runs one probe within the ping timeout; a failure is reported `down` with its reason, like a database ping. */
  private async probe(probe: ReadinessProbe): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(probe.name);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timeout of ${PING_TIMEOUT_MS}ms exceeded`)), PING_TIMEOUT_MS);
    });
    try {
      await Promise.race([probe.check(), timeout]);
      return indicator.up();
    } catch (error) {
      return indicator.down({ message: error instanceof Error ? error.message : String(error) });
    } finally {
      clearTimeout(timer);
    }
  }
}

/** `database:segment (timeout of 2000ms exceeded)`, from Terminus' result carried by the exception. */
function failuresOf(error: ServiceUnavailableException): string {
  const result = error.getResponse() as Partial<HealthCheckResult>;
  const failed = Object.entries(result.error ?? {}).map(([name, detail]) => {
    const message = (detail as { message?: unknown }).message;
    return typeof message === 'string' ? `${name} (${message})` : name;
  });
  return failed.length > 0 ? failed.join(', ') : 'shutting down';
}
