import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheck, type HealthCheckResult, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { DataSources } from './data-sources';

/** How long a database may take to answer `SELECT 1` before the service counts as not ready. */
const PING_TIMEOUT_MS = 2000;

/** Kubernetes-style probes. Unauthenticated: they reveal only up or down, and which dependency. */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly typeOrm: TypeOrmHealthIndicator,
    private readonly dataSources: DataSources,
  ) {}

  /** The process is up and serving HTTP. */
  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /** Every database this process uses answers; 503 naming the ones that do not. */
  @Get('ready')
  @HealthCheck()
  async ready(): Promise<HealthCheckResult> {
    const pings = this.dataSources
      .all()
      .map(({ name, dataSource }) => () => this.typeOrm.pingCheck(name, { connection: dataSource, timeout: PING_TIMEOUT_MS }));
    try {
      return await this.health.check(pings);
    } catch (error) {
      if (error instanceof ServiceUnavailableException) throw new ServiceUnavailableException(`not ready: ${failuresOf(error)}`);
      throw error;
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
