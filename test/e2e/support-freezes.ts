import { api, type HttpMethod, type TestAccount } from './support';
import { ndjsonBody, patchProfile, userPath } from './support-people';
import type { Tracker } from './support-tracking';

/**
 * Gray failures, for the freeze specs of both shapes: a store stopped with SIGSTOP keeps its connections
 * open and answers nothing, as a stalled disk, a long GC pause or a short partition do. While it is
 * frozen, clients of every route family must be answered in bounded time, and served again soon after
 * the thaw.
 */

/** As long as a stalled disk or a long pause: far longer than any request may wait. */
export const FREEZE_MS = 30_000;
/**
 * The longest a request may wait for its answer while a store is frozen: the wait on a silent store
 * (`GUIDEPOST_DEPENDENCY_TIMEOUT_MS`, 5 s), twice where a request meets it twice, and a margin for a
 * loaded machine.
 */
export const ANSWER_BOUND_MS = 15_000;
/** After the thaw, every kind of request is served again within this time. */
export const RECOVERY_BOUND_MS = 15_000;

/** One answer: to which request, what, and how long the client waited for it. */
export interface Outcome {
  readonly name: string;
  readonly status: number;
  readonly retryAfter: string | null | undefined;
  readonly ms: number;
  /** When the answer came, `Date.now()`. */
  readonly at: number;
}

interface ProbeRequest {
  readonly name: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly json?: unknown;
  readonly ndjson?: string;
}

/** The probes' users, whose profiles exist before the freeze (a profile read answers 200, not 404). */
const PROBE_USERS = 5;

/** The requests a client of each route family makes, touching between them every store. */
function probeRequests(round: number): ProbeRequest[] {
  const user = `probe-${round % PROBE_USERS}`;
  const row = JSON.stringify({ user_id: user, name: 'probe', timestamp: '2026-01-01T00:00:00Z' });
  return [
    { name: 'import upload', method: 'POST', path: '/import/events', ndjson: `${row}\n` },
    { name: 'profile write', method: 'PATCH', path: userPath(user, 'profile'), json: { round } },
    { name: 'profile read', method: 'GET', path: userPath(user, 'profile') },
    { name: 'history read', method: 'GET', path: `${userPath(user, 'events')}?limit=5` },
    { name: 'content read', method: 'GET', path: '/flows' },
    { name: 'job list', method: 'GET', path: '/jobs' },
  ];
}

/** The names of the probes, and of tracking: each must be served again after a thaw. */
export const SERVED_AGAIN = ['track', ...probeRequests(0).map((request) => request.name)];

/**
 * A client of every route family making requests one after another until stopped, each timed; a
 * refused request is retried after a pause, as real clients do.
 */
export class Prober {
  readonly outcomes: Outcome[] = [];
  private stopped = false;

  constructor(private readonly account: TestAccount) {}

  /** Gives every probe user a profile. */
  async prepare(): Promise<void> {
    for (let user = 0; user < PROBE_USERS; user += 1) await patchProfile(this.account, `probe-${user}`, { round: -1 });
  }

  async run(): Promise<void> {
    for (let round = 0; !this.stopped; round += 1) {
      for (const request of probeRequests(round)) {
        const started = Date.now();
        const body = request.ndjson === undefined ? { json: request.json } : ndjsonBody(request.ndjson);
        // Each answer as it came: a 429 is timed and counted, not waited out and sent again.
        const response = await api(this.account, request.method, request.path, { ...body, retryThrottled: false }).catch(() => undefined);
        await response?.arrayBuffer().catch(() => undefined);
        const at = Date.now();
        this.outcomes.push({
          name: request.name,
          status: response?.status ?? 0,
          retryAfter: response?.headers.get('retry-after'),
          ms: at - started,
          at,
        });
        if (response?.ok !== true) await delay(200);
      }
      await delay(100);
    }
  }

  stop(): void {
    this.stopped = true;
  }
}

/** The tracker's and the probes' answers, as outcomes. */
export function outcomesOf(tracker: Tracker, prober: Prober): Outcome[] {
  const tracked = tracker.outcomes.map((outcome) => ({
    name: 'track',
    status: outcome.status,
    retryAfter: outcome.retryAfter,
    ms: outcome.ms,
    at: outcome.at,
  }));
  return [...tracked, ...prober.outcomes];
}

/**
 * What a client may be answered while a store is frozen: a success, or a 503 telling when to retry (or
 * a 429, when the account's imports in progress have reached their limit while the store was away),
 * within the bound.
 */
export function answeredInTime(outcome: Outcome): boolean {
  const clear = (outcome.status >= 200 && outcome.status < 300) || ([429, 503].includes(outcome.status) && outcome.retryAfter != null);
  return clear && outcome.ms <= ANSWER_BOUND_MS;
}

/** An answer asked for while the store was frozen that shows it: refused, or slow. Without any, the freeze tested nothing. */
export function feltTheFreeze(outcome: Outcome, frozenAt: number, thawedAt: number): boolean {
  const askedAt = outcome.at - outcome.ms;
  return askedAt >= frozenAt + 2_000 && askedAt < thawedAt && (outcome.status >= 500 || outcome.ms > 1_000);
}

/**
 * The names of the requests that were not served again within `RECOVERY_BOUND_MS` of `thawedAt`:
 * answered with a success, or with a 429 with `Retry-After` (the account's imports in progress, held up
 * by the freeze, may fill its limit for a while after it; the service answers, it is the account's
 * business), but no longer with a 503.
 */
export function notServedAgain(outcomes: readonly Outcome[], thawedAt: number): string[] {
  const servedAgain = (outcome: Outcome): boolean =>
    outcome.at >= thawedAt &&
    outcome.at <= thawedAt + RECOVERY_BOUND_MS &&
    ((outcome.status >= 200 && outcome.status < 300) || (outcome.status === 429 && outcome.retryAfter != null));
  const served = new Set(outcomes.filter(servedAgain).map(({ name }) => name));
  return SERVED_AGAIN.filter((name) => !served.has(name));
}

/**
 * Runs `tracker` and `prober` while `freeze` stops a store for `FREEZE_MS`, `thaw` lets it go (always,
 * even after a failure), then for `RECOVERY_BOUND_MS`; returns when it was frozen and thawed.
 */
export async function underFreeze(
  tracker: Tracker,
  prober: Prober,
  freeze: () => Promise<void>,
  thaw: () => Promise<void>,
): Promise<{ frozenAt: number; thawedAt: number }> {
  await prober.prepare();
  const running = [tracker.run(4, 20), prober.run()];
  let frozenAt = 0;
  let thawedAt = 0;
  try {
    await delay(1_000);
    await freeze();
    frozenAt = Date.now();
    await delay(FREEZE_MS);
  } finally {
    // Also when the freeze failed: a store left frozen would hang every later test.
    await thaw();
    thawedAt = Date.now();
    await delay(RECOVERY_BOUND_MS);
    tracker.stop();
    prober.stop();
    await Promise.all(running);
  }
  return { frozenAt, thawedAt };
}

/** The checks every freeze spec makes of what clients saw. */
export function expectAnsweredThroughFreeze(outcomes: readonly Outcome[], frozenAt: number, thawedAt: number): void {
  expect(outcomes.filter((outcome) => !answeredInTime(outcome)).slice(0, 10)).toEqual([]);
  expect(outcomes.some((outcome) => feltTheFreeze(outcome, frozenAt, thawedAt))).toBe(true);
  expect(notServedAgain(outcomes, thawedAt)).toEqual([]);
}

function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
