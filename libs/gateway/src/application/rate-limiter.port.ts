import type { RateLimitDecision } from '../domain/fixed-window-rate-limiter';

/**
 * Counts an account's requests against its budget. In memory (`FixedWindowRateLimiter`) where one
 * process sees every request (the standalone shape); shared through PostgreSQL (`SharedRateLimiter`)
 * where several gateway replicas split the traffic.
 */
export abstract class RateLimiter {
  abstract take(subject: string): RateLimitDecision | Promise<RateLimitDecision>;
}
