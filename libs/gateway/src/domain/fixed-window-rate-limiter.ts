/** The outcome of one request against its subject's budget, in the terms of the RateLimit headers. */
export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Whole seconds (at least 1) until the budget is full again; also the `Retry-After` of a refusal. */
  readonly resetSeconds: number;
  /** When the budget is full again, in seconds since the epoch (rounded up): what the official clients read. */
  readonly resetAt: number;
}

/** Past this many tracked subjects, windows that have ended are swept out before a new one is added. */
const SWEEP_THRESHOLD = 10_000;

/**
 * Allows `limit` requests per subject (an account) in each window. A subject's window opens with its
 * first request and lasts `windowMs`; the next request after that opens a fresh one.
 *
 * State is in this process's memory: exact where one process sees every request, and what each
 * gateway replica falls back to while the shared count (`SharedRateLimiter`) cannot be reached.
 */
export class FixedWindowRateLimiter {
  private readonly windows = new Map<string, { readonly endsAt: number; used: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  take(subject: string): RateLimitDecision {
    const now = this.now();
    let window = this.windows.get(subject);
    if (window === undefined || window.endsAt <= now) {
      if (window === undefined && this.windows.size >= SWEEP_THRESHOLD) this.sweep(now);
      window = { endsAt: now + this.windowMs, used: 0 };
      this.windows.set(subject, window);
    }
    const allowed = window.used < this.limit;
    if (allowed) window.used += 1;
    return {
      allowed,
      limit: this.limit,
      remaining: this.limit - window.used,
      resetSeconds: Math.max(1, Math.ceil((window.endsAt - now) / 1000)),
      resetAt: Math.ceil(window.endsAt / 1000),
    };
  }

  private sweep(now: number): void {
    for (const [subject, window] of this.windows) {
      if (window.endsAt <= now) this.windows.delete(subject);
    }
  }
}
