import { api, type TestAccount } from './support';
import { eventually } from './support';
import { history, userPath } from './support-people';

/** What one tracked request came to. */
export interface TrackOutcome {
  /** The attribute `n` of the event. */
  readonly n: number;
  /** The answer's status; 0 when there was no answer at all. */
  readonly status: number;
  /** Without an answer, why: the connection error's code (`ECONNREFUSED`, `ECONNRESET`, `UND_ERR_SOCKET`, ...). */
  readonly error?: string;
  /** An answer other than 200: its Problem Details `detail`, or the start of its body when it is not one. */
  readonly detail?: string;
  /** An answer other than 200: its `Content-Type` and `Retry-After` headers (a clear refusal has both). */
  readonly contentType?: string;
  readonly retryAfter?: string;
  /** When the answer (or the failure) came, `Date.now()`. */
  readonly at: number;
  /** How long the client waited for it, in milliseconds. */
  readonly ms: number;
}

/** The tracker's users: `tracked-0` to `tracked-19`. */
const USERS = 20;

/**
 * Tracks numbered events (attribute `n`, users `tracked-0` to `tracked-19`) with a few concurrent
 * clients until stopped; remembers which were acknowledged (200) and what every request came to.
 */
export class Tracker {
  readonly acknowledged: number[] = [];
  /** Answers other than 200, by status (0: no answer at all), to show what clients saw during an outage. */
  readonly refused = new Map<number, number>();
  readonly outcomes: TrackOutcome[] = [];
  private next = 1;
  private stopped = false;

  constructor(readonly account: TestAccount) {}

  /** `pauseMs` between a client's requests keeps the load under the account's rate limit (0: as fast as answered). */
  async run(concurrency = 8, pauseMs = 0): Promise<void> {
    await Promise.all(Array.from({ length: concurrency }, () => this.client(pauseMs)));
  }

  stop(): void {
    this.stopped = true;
  }

  private async client(pauseMs: number): Promise<void> {
    while (!this.stopped) {
      const n = this.next++;
      const started = Date.now();
      let error: string | undefined;
      const response = await api(this.account, 'POST', userPath(`tracked-${n % USERS}`, 'events'), {
        json: { name: 'tick', timestamp: new Date().toISOString(), attributes: { n } },
      }).catch((failure: unknown) => {
        error = connectionErrorOf(failure);
        return undefined;
      });
      const status = response?.status ?? 0;
      const body = (await response?.text().catch(() => undefined)) ?? '';
      const refused = status !== 200 && response !== undefined;
      const headers = refused
        ? { contentType: response.headers.get('content-type') ?? undefined, retryAfter: response.headers.get('retry-after') ?? undefined }
        : {};
      const at = Date.now();
      this.outcomes.push({ n, status, error, detail: refused ? detailOf(body) : undefined, ...headers, at, ms: at - started });
      if (status === 200) this.acknowledged.push(n);
      else this.refused.set(status, (this.refused.get(status) ?? 0) + 1);
      // A refused request is retried by real clients after a pause; without one, an outage would be a busy loop.
      if (status !== 200) await delay(100);
      else if (pauseMs > 0) await delay(pauseMs);
    }
  }
}

/**
 * Waits until every event the tracker had acknowledged is in its users' history, then returns the
 * missing ones (an empty list); fails with how many are missing after `timeoutMs`.
 */
export async function acknowledgedMissingFromHistory(tracker: Tracker, timeoutMs: number): Promise<number[]> {
  const acknowledged = new Set(tracker.acknowledged);
  return eventually(
    async () => {
      const stored = new Set<number>();
      for (let user = 0; user < USERS; user += 1) {
        for (const event of await history(tracker.account, `tracked-${user}`, '?limit=10000')) stored.add(Number(event.attributes?.['n']));
      }
      const notStored = [...acknowledged].filter((n) => !stored.has(n));
      if (notStored.length > 0) throw new Error(`${notStored.length} of ${acknowledged.size} acknowledged events are not in history yet`);
      return notStored;
    },
    timeoutMs,
    500,
  );
}

/** An NDJSON events file of `rows` events of `users` users, each with its row number as attribute `n`. */
export function eventsFile(rows: number, users = 1000): string {
  const start = Date.parse('2026-01-01T00:00:00Z');
  const lines: string[] = [];
  for (let n = 1; n <= rows; n += 1) {
    lines.push(
      JSON.stringify({
        user_id: `u${n % users}`,
        name: 'page_view',
        timestamp: new Date(start + n * 1000).toISOString(),
        attributes: { n },
      }),
    );
  }
  return `${lines.join('\n')}\n`;
}

function detailOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { detail?: unknown };
    if (typeof parsed.detail === 'string') return parsed.detail;
  } catch {
    // not JSON: the body itself says what it is
  }
  return body.slice(0, 200);
}

/** fetch rejects with `TypeError: fetch failed`; the reason is its cause's code (undici's or the socket's). */
function connectionErrorOf(failure: unknown): string {
  const cause = (failure as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  return typeof cause?.message === 'string' ? cause.message : String(failure);
}

function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
