import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { reasonOf } from '@guidepost/platform-failures';
import { PeriodicTask } from '@guidepost/platform-scheduling';
import type { ApiKeyAuthenticator } from '../application/api-key-authenticator';
import { GATEWAY_SCHEMA } from '../gateway-schema';

/** How often a replica looks for keys revoked elsewhere: a revoked key stops working everywhere within this. */
export const REVOCATION_POLL_MS = 500;
/** Looks this far behind the last look too, so a revocation committed late (clocks, long transactions) is not missed. */
const OVERLAP_MS = 5_000;

/**
 * Makes a key revoked through any gateway replica stop working on this one within
 * `REVOCATION_POLL_MS`: it asks PostgreSQL for keys revoked since its last look (an indexed query,
 * whatever the traffic) and drops them from the authenticator's cache. While the database does not
 * answer, cached keys stay usable (no key can be revoked then either) and it catches up afterwards.
 */
export class RevokedKeyWatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RevokedKeyWatcher.name);
  private readonly task = new PeriodicTask({
    intervalMs: REVOCATION_POLL_MS,
    run: () => this.look(),
    onFailure: (error) => this.reportFailure(error),
  });
  /** The database's clock at the last look that succeeded. */
  private since: Date | undefined;
  private failing = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly authenticator: ApiKeyAuthenticator,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** One look (or the one in hand); resolves once the revoked keys it found are forgotten. */
  lookOnce(): Promise<void> {
    return this.task.runOnce();
  }

  private async look(): Promise<void> {
    const rows: { key: string | null; now: Date }[] = await this.dataSource.query(
      `SELECT k.key, now() AS now FROM (SELECT 1) AS one
         LEFT JOIN ${GATEWAY_SCHEMA}.api_keys AS k ON k.revoked_at >= $1::timestamptz`,
      [new Date((this.since?.getTime() ?? Date.now()) - OVERLAP_MS)],
    );
    for (const { key } of rows) if (key !== null) this.authenticator.forget(key);
    this.since = rows[0].now;
    if (this.failing) this.logger.log('looking for revoked API keys again');
    this.failing = false;
  }

  /** Said once per outage, not twice a second. */
  private reportFailure(error: unknown): void {
    if (!this.failing) this.logger.warn(`cannot look for revoked API keys (cached keys stay usable meanwhile): ${reasonOf(error)}`);
    this.failing = true;
  }
}
