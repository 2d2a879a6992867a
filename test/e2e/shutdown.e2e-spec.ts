import { createAccount, eventually, startServer, type RunningServer, type ServerExit } from './support';
import { useServer } from './support-segments';
import { acknowledgedMissingFromHistory, Tracker } from './support-tracking';

const GRACE_MS = 15_000;
/** Connection errors a client may meet once the listener is closed: refused, or a connection closed under a request not yet read. */
const CLOSED_LISTENER_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * A SIGTERM under load (eight clients tracking events) stops the standalone process cleanly: no request
 * is answered 5xx (each is answered 200, or its connection is refused or closed once the listener is
 * closed), the process exits 0 within its grace period after the requests in flight, the track group
 * commit, the relays and the consumers are done and only then its embedded PostgreSQL stops, and after
 * a restart every acknowledged event is in history. This file runs its own server.
 */
describe('clean shutdown under load', () => {
  let running: RunningServer | undefined;
  let pointBack: (() => void) | undefined;
  let tracker: Tracker;
  let signalledAt: number;
  let exit: ServerExit;

  beforeAll(async () => {
    running = await startServer({ env: { GUIDEPOST_RATE_LIMIT_PER_SECOND: '100000', GUIDEPOST_SHUTDOWN_GRACE_MS: String(GRACE_MS) } });
    pointBack = useServer(running);
    tracker = new Tracker(await createAccount());
    const tracking = tracker.run(8);
    // Well under way: requests are in flight when the signal comes.
    await eventually(() => expect(tracker.acknowledged.length).toBeGreaterThan(300), 60_000, 50);
    signalledAt = Date.now();
    exit = await running.terminate();
    // Clients keep going while the server is down (refused), and after it is back.
    await running.start();
    const backAt = tracker.acknowledged.length;
    await eventually(() => expect(tracker.acknowledged.length).toBeGreaterThan(backAt + 100), 60_000, 50);
    tracker.stop();
    await tracking;
  }, 300_000);

  afterAll(async () => {
    // A set-up that failed half way would leave the clients tracking, and the test run open.
    tracker?.stop();
    pointBack?.();
    await running?.stop();
  }, 60_000);

  it('exits 0 within its grace period', () => {
    expect({ code: exit.code, signal: exit.signal, killed: exit.killed }).toEqual({ code: 0, signal: null, killed: false });
    expect(exit.afterMs).toBeLessThan(GRACE_MS);
  });

  it('answers every request it reads: 200, never 5xx; the others meet a closed listener', () => {
    const answered = tally(tracker.outcomes.filter((outcome) => outcome.status !== 0).map((outcome) => String(outcome.status)));
    expect(answered).toEqual({ '200': tracker.acknowledged.length });
    const unanswered = tracker.outcomes.filter((outcome) => outcome.status === 0);
    expect(unanswered.filter((outcome) => !CLOSED_LISTENER_ERRORS.has(outcome.error ?? ''))).toEqual([]);
    // None before the signal: the listener closed only then.
    expect(unanswered.filter((outcome) => outcome.at < signalledAt)).toEqual([]);
  });

  it('keeps every acknowledged event: all are in history after the restart', async () => {
    expect(tracker.acknowledged.length).toBeGreaterThan(400);
    expect(await acknowledgedMissingFromHistory(tracker, 60_000)).toEqual([]);
  });
});

function tally(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
