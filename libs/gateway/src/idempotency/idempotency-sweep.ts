import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { reasonOf } from '@guidepost/platform-failures';
import { PeriodicTask } from '@guidepost/platform-scheduling';
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
  private readonly task: PeriodicTask<number>;

  constructor(
    private readonly store: IdempotencyStore,
    intervalMs = IDEMPOTENCY_SWEEP_INTERVAL_MS,
  ) {
    this.task = new PeriodicTask({
      intervalMs,
      run: () => this.sweep(),
      onFailure: (error) => {
        this.logger.warn(`the sweep of expired idempotency keys failed, retrying at the next one: ${reasonOf(error)}`);
        return 0;
      },
    });
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** One sweep (or the one in hand); resolves with the keys deleted. A failure is logged; the next sweep tries again. */
  sweepOnce(): Promise<number> {
    return this.task.runOnce();
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
