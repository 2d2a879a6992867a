import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { reasonOf, withDeadline } from '@guidepost/platform-failures';
import { RateLimiter } from '../application/rate-limiter.port';
import { FixedWindowRateLimiter, type RateLimitDecision } from '../domain/fixed-window-rate-limiter';
import { GATEWAY_SCHEMA } from '../gateway-schema';

const WINDOW_MS = 1000;
/**
 * A replica takes an account's budget from the shared count in leases of this share of it: a small
 * share keeps what a replica may hold unused at the end of a window (at most a lease per replica)
 * well within a tenth of the budget; a larger one means fewer trips to the database.
 */
const LEASE_SHARE = 1 / 40;
/** Windows older than this are deleted, by whichever replica happens to be first each minute. */
const KEPT_WINDOWS_MS = 60_000;
/**
 * How long a request waits for a lease before this replica limits alone, and for how long it then does
 * without asking: a frozen or unreachable database must cost clients neither time nor a refusal.
 */
const LEASE_WAIT_MS = 1_000;
const ALONE_AFTER_FAILURE_MS = 1_000;

interface Lease {
  readonly windowStart: number;
  /** Requests this replica may still admit in the window without asking again. */
  left: number;
  /** The shared count after this replica's last lease: what the RateLimit headers report. */
  grantedEverywhere: number;
  /** The shared budget is spent: refuse until the window ends. */
  exhausted: boolean;
  /** Requests waiting for a lease: the next one asks for at least as many. */
  waiting: number;
  /** The lease being taken, which every request that finds this one spent waits for. */
  renewal?: Promise<void>;
}

/**
 * One budget per account across every gateway replica, held in PostgreSQL (`rate_limit_windows`):
 * windows are aligned to the clock's seconds, and a replica leases a slice of the window's budget at
 * a time (one `INSERT ... ON CONFLICT DO UPDATE`), so most requests cost no query while no replica can
 * ever admit more than the budget allows altogether. Should the database fail or not answer within
 * `leaseWaitMs` (`LEASE_WAIT_MS` by default), each replica falls back to the budget on its own, in
 * memory, for a second at a time, rather than refuse, hold requests or admit everything.
 */
export class SharedRateLimiter extends RateLimiter {
  private readonly logger = new Logger(SharedRateLimiter.name);
  private readonly leases = new Map<string, Lease>();
  private readonly leaseSize: number;
  private readonly fallback: FixedWindowRateLimiter;
  private sweptAt = 0;
  /** Until then, this replica limits alone (the database failed to lease in time). */
  private aloneUntil = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly limit: number,
    private readonly now: () => number = Date.now,
    private readonly leaseWaitMs: number = LEASE_WAIT_MS,
  ) {
    super();
    this.leaseSize = Math.max(1, Math.ceil(limit * LEASE_SHARE));
    this.fallback = new FixedWindowRateLimiter(limit, WINDOW_MS, now);
  }

  async take(subject: string): Promise<RateLimitDecision> {
    const now = this.now();
    const windowStart = now - (now % WINDOW_MS);
    let lease = this.leases.get(subject);
    if (lease === undefined || lease.windowStart !== windowStart) {
      lease = { windowStart, left: 0, grantedEverywhere: 0, exhausted: false, waiting: 0 };
      this.leases.set(subject, lease);
      this.forgetEndedWindows(windowStart);
    }
    // Several requests may find the lease spent together; they share one renewal, and whoever finds
    // it spent again (others took it first) asks for the next one.
    while (lease.left === 0 && !lease.exhausted) {
      if (this.now() < this.aloneUntil) return this.fallback.take(subject);
      lease.waiting += 1;
      try {
        await this.renewalOf(subject, lease);
      } catch (error) {
        this.aloneUntil = this.now() + ALONE_AFTER_FAILURE_MS;
        this.logger.warn(`the shared rate limit is unavailable, limiting on this replica alone: ${reasonOf(error)}`);
        return this.fallback.take(subject);
      } finally {
        lease.waiting -= 1;
      }
    }
    const reset = {
      resetSeconds: Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000)),
      resetAt: Math.ceil((windowStart + WINDOW_MS) / 1000),
    };
    if (lease.left === 0) return { allowed: false, limit: this.limit, remaining: 0, ...reset };
    lease.left -= 1;
    return { allowed: true, limit: this.limit, remaining: Math.max(0, this.limit - lease.grantedEverywhere + lease.left), ...reset };
  }

  /**
   * The renewal under way, or a new one for every request waiting: one at a time per lease, so that a
   * replica holds at most one lease unused when the window ends, and sized to the requests waiting, so
   * that a slow database does not hold admissions below the budget.
   */
  private renewalOf(subject: string, lease: Lease): Promise<void> {
    lease.renewal ??= withDeadline(
      this.renew(subject, lease, Math.max(this.leaseSize, lease.waiting)),
      this.leaseWaitMs,
      'the shared rate limit (PostgreSQL)',
    ).finally(() => {
      lease.renewal = undefined;
    });
    return lease.renewal;
  }

  /**
   * Takes `size` more from the shared count. The count may pass the budget by less than that (the
   * replica that passes it admits only what was left), and once it has, nobody adds to it.
   */
  private async renew(subject: string, lease: Lease, size: number): Promise<void> {
    const rows: { granted: number }[] = await this.dataSource.query(
      `INSERT INTO ${GATEWAY_SCHEMA}.rate_limit_windows AS w (account_id, window_start, granted)
       VALUES ($1, $2, $3)
       ON CONFLICT (account_id, window_start) DO UPDATE SET granted = w.granted + $3
       WHERE w.granted < $4
       RETURNING granted`,
      [subject, lease.windowStart, size, this.limit],
    );
    const granted = rows[0]?.granted;
    if (granted === undefined) {
      lease.exhausted = true;
      lease.grantedEverywhere = this.limit;
      return;
    }
    lease.left += size - Math.max(0, granted - this.limit);
    lease.grantedEverywhere = Math.min(granted, this.limit);
    if (granted >= this.limit) lease.exhausted = true;
    await this.sweep(lease.windowStart);
  }

  private forgetEndedWindows(current: number): void {
    if (this.leases.size < 10_000) return;
    for (const [subject, lease] of this.leases) if (lease.windowStart < current) this.leases.delete(subject);
  }

  /** Deletes windows past keeping, at most once a minute per replica. */
  private async sweep(current: number): Promise<void> {
    if (current - this.sweptAt < KEPT_WINDOWS_MS) return;
    this.sweptAt = current;
    await this.dataSource.query(`DELETE FROM ${GATEWAY_SCHEMA}.rate_limit_windows WHERE window_start < $1`, [current - KEPT_WINDOWS_MS]);
  }
}
