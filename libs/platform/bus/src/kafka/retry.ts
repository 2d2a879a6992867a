import { setTimeout as sleep } from 'node:timers/promises';

/** How often a failing handler is run again in process before its message is given up on (dead-lettered). */
export interface RetryPolicy {
  readonly attempts: number;
  /** Wait after the first failure; each further failure doubles it, up to `maxDelayMs`. */
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
}

/**
 * Five runs over about four seconds: long enough to ride out a blip (a database failover, a lock
 * timeout), short enough that a poison message holds its partition only briefly.
 */
export const HANDLER_RETRY: RetryPolicy = { attempts: 5, firstDelayMs: 250, maxDelayMs: 4000 };

/** What came of running a handler under a retry policy. */
export type AttemptOutcome =
  | { readonly kind: 'done' }
  /** Every attempt failed; `reason` is the last error's message. */
  | { readonly kind: 'failed'; readonly reason: string; readonly attempts: number }
  /** The consumer is stopping: the work is neither done nor given up on, and is delivered again later. */
  | { readonly kind: 'abandoned' };

/** The wait before the next attempt, after `failedAttempts` failures. */
export function backoffDelayMs(policy: RetryPolicy, failedAttempts: number): number {
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** (failedAttempts - 1));
}

export interface AttemptOptions {
  /** Aborted when the consumer stops: a failure then ends the attempts without giving the work up. */
  readonly stopping: AbortSignal;
  /** Told of every failure; `retryInMs` is undefined after the last attempt. */
  readonly onFailure: (error: unknown, attempt: number, retryInMs: number | undefined) => void;
}

/**
 * Runs `work` until it resolves or the policy's attempts are spent, waiting with exponential back-off
 * between attempts. A failure while stopping is not counted as the work's fault (a handler may fail
 * because the process is shutting down), so it abandons rather than fails.
 */
export async function attemptWithBackoff(work: () => Promise<void>, policy: RetryPolicy, options: AttemptOptions): Promise<AttemptOutcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      await work();
      return { kind: 'done' };
    } catch (error) {
      if (options.stopping.aborted) return { kind: 'abandoned' };
      const last = attempt >= policy.attempts;
      const retryInMs = last ? undefined : backoffDelayMs(policy, attempt);
      options.onFailure(error, attempt, retryInMs);
      if (retryInMs === undefined) return { kind: 'failed', reason: reasonOf(error), attempts: attempt };
      if (!(await waitUnlessStopping(retryInMs, options.stopping))) return { kind: 'abandoned' };
    }
  }
}

/** Waits, or stops waiting as soon as the consumer stops; true when the whole wait passed. */
async function waitUnlessStopping(ms: number, stopping: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal: stopping });
    return true;
  } catch {
    return false;
  }
}

export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
