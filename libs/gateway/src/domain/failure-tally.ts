import { ExpiringCache } from './expiring-cache';

export interface FailureTallyOptions {
  /** Failures within one window that throttle their subject. */
  readonly failures: number;
  /** The window opens with a subject's first failure and lasts this long. */
  readonly windowMs: number;
  /** How long a subject stays throttled once it reached `failures`. */
  readonly coolDownMs: number;
  /** Upper bound on subjects remembered; the least recently seen is forgotten to make room. */
  readonly maxSubjects: number;
}

interface Tally {
  readonly windowEndsAt: number;
  failures: number;
  /** Set when the subject reached the limit: it is throttled until then. */
  throttledUntil?: number;
}

/**
 * Counts failures per subject (a client address, a credential) in a fixed window opened by the first
 * one: the subject is throttled for a cool-down once it has `failures` in its window, and starts afresh
 * after it. Memory is bounded whatever is counted (`ExpiringCache`): a tally lives at most a window and
 * a cool-down after its last failure, and past `maxSubjects` the least recently seen goes first.
 */
export class FailureTally {
  private readonly tallies: ExpiringCache<string, Tally>;

  constructor(
    private readonly options: FailureTallyOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.tallies = new ExpiringCache({ ttlMs: options.windowMs + options.coolDownMs, maxEntries: options.maxSubjects }, now);
  }

  get size(): number {
    return this.tallies.size;
  }

  /** Milliseconds until the subject is no longer throttled; 0 when it is not. */
  throttledFor(subject: string): number {
    const until = this.tallies.get(subject)?.throttledUntil ?? 0;
    return Math.max(0, until - this.now());
  }

  /** Counts one failure; true when it is the one that throttles the subject. */
  fail(subject: string): boolean {
    const now = this.now();
    const current = this.tallies.get(subject);
    const throttled = (current?.throttledUntil ?? 0) > now;
    // A throttled subject keeps its tally (failures may still come from where it is not refused).
    const tally =
      current === undefined || (current.windowEndsAt <= now && !throttled)
        ? { windowEndsAt: now + this.options.windowMs, failures: 0 }
        : current;
    tally.failures += 1;
    const throttles = !throttled && tally.failures >= this.options.failures;
    if (throttles) tally.throttledUntil = now + this.options.coolDownMs;
    this.tallies.set(subject, tally);
    return throttles;
  }
}
