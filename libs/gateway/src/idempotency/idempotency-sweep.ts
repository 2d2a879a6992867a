import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { reasonOf } from '@guidepost/platform-failures';
import { IdempotencyStore } from './idempotency-store.port';

/** How often expired keys are deleted. */
export const IDEMPOTENCY_SWEEP_INTERVAL_MS = 10 * 60 * 1000;
/** Rows one statement deletes, so a sweep after a long pause never holds one long transaction. */
const SWEEP_BATCH = 5_000;

/**
 * Deletes expired `Idempotency-Key`s and their answers every `intervalMs` (10 minutes), in batches,
 * so the table holds about one day of keys. Every gateway replica (and the standalone process) sweeps:
 * deleting twice is harmless, and a running claim is never deleted.
 */
export class IdempotencySweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Idempotency');
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly intervalMs = IDEMPOTENCY_SWEEP_INTERVAL_MS,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweepOnce(), this.intervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  /** One sweep (at most one at a time); resolves with the keys deleted. A failure is logged; the next sweep tries again. */
  sweepOnce(): Promise<number> {
    this.sweeping ??= this.sweep()
      .catch((error: unknown) => {
        this.logger.warn(`the sweep of expired idempotency keys failed, retrying at the next one: ${reasonOf(error)}`);
        return 0;
      })
      .finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.store.deleteExpired(SWEEP_BATCH);
      total += deleted;
      if (deleted < SWEEP_BATCH) break;
    }
    if (total > 0) this.logger.log(`deleted ${total} expired idempotency keys`);
    return total;
  }
}
