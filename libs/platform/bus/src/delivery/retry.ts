import { setTimeout as sleep } from 'node:timers/promises';
import { classifyFailure, type FailureClass, reasonOf } from '@guidepost/platform-failures';

export { reasonOf };

/** How a failing handler is run again in process; which rule applies depends on the failure's class. */
export interface RetryPolicy {
  /** Runs of work whose failure is `unrecognised` before it is given up on (dead-lettered). */
  readonly attempts: number;
  /** Wait after the first failure; each further failure doubles it, up to `maxDelayMs`. */
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
}

/**
 * Unrecognised failures: five runs over about four seconds, long enough to ride out a blip, short
 * enough that a poison message holds its partition only briefly. Transient failures (a dependency is
 * down) are retried with the same back-off, capped at `maxDelayMs`, for as long as they last.
 */
export const HANDLER_RETRY: RetryPolicy = { attempts: 5, firstDelayMs: 250, maxDelayMs: 4000 };

/** What came of running a handler under a retry policy. */
export type AttemptOutcome =
  | { readonly kind: 'done' }
  /** Given up on: a permanent failure, or an unrecognised one that outlived its attempts. */
  | { readonly kind: 'failed'; readonly reason: string; readonly attempts: number; readonly failureClass: FailureClass }
  /** The consumer is stopping: the work is neither done nor given up on, and is delivered again later. */
  | { readonly kind: 'abandoned' };

/** The wait before the next attempt, after `failedAttempts` failures. */
export function backoffDelayMs(policy: RetryPolicy, failedAttempts: number): number {
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.min(failedAttempts - 1, 30));
}

export interface AttemptOptions {
  /** Aborted when the consumer stops: a failure then ends the attempts without giving the work up. */
  readonly stopping: AbortSignal;
  /** False once the work is no longer this consumer's (its partition went to another member). */
  readonly stillOwned?: () => boolean;
  /**
   * Throw a transient failure instead of waiting it out here: the in-process bus runs handlers inside
   * the outbox relay's transaction, and the relay waits for the outage itself, holding nothing.
   */
  readonly rethrowTransient?: boolean;
  /** Told of every failure with its class; `retryInMs` is undefined when the work is given up on. */
  readonly onFailure: (error: unknown, failure: { attempt: number; failureClass: FailureClass; retryInMs: number | undefined }) => void;
}

/**
 * Runs `work` until it resolves, waiting with exponential back-off between attempts. A transient
 * failure is retried for as long as it lasts; a permanent one is given up at once; an unrecognised one
 * after the policy's attempts. A failure while stopping is not counted as the work's fault (a handler
 * may fail because the process is shutting down), so it abandons rather than fails.
 */
export async function attemptWithBackoff(work: () => Promise<void>, policy: RetryPolicy, options: AttemptOptions): Promise<AttemptOutcome> {
  let unrecognised = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      await work();
      return { kind: 'done' };
    } catch (error) {
      if (options.stopping.aborted) return { kind: 'abandoned' };
      const failureClass = classifyFailure(error);
      if (failureClass === 'transient' && options.rethrowTransient) throw error;
      if (failureClass === 'unrecognised') unrecognised += 1;
      const givenUp = failureClass === 'permanent' || (failureClass === 'unrecognised' && unrecognised >= policy.attempts);
      const retryInMs = givenUp ? undefined : backoffDelayMs(policy, attempt);
      options.onFailure(error, { attempt, failureClass, retryInMs });
      if (retryInMs === undefined) return { kind: 'failed', reason: reasonOf(error), attempts: attempt, failureClass };
      if (!(await waitUnlessStopping(retryInMs, options.stopping))) return { kind: 'abandoned' };
      if (options.stillOwned && !options.stillOwned()) return { kind: 'abandoned' };
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
