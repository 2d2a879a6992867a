import { createAccount, eventually } from '../e2e/support';
import { eventuallyStoredEvents, storedNumbers, Tracker, useSpecSuite } from './support';
import type { ProcessExit } from '@guidepost/tools-suite';

/** The services' default (GUIDEPOST_SHUTDOWN_GRACE_MS). */
const GRACE_MS = 25_000;

/**
 * A clean stop of a service of the distributed shape: SIGTERM to the ingestion service while eight
 * clients track events through the gateway. The service answers the requests it has read (200), its
 * consumers commit and leave their groups, its relay stops and its producer closes last, and it exits 0
 * within its grace period; started again, it relays what it acknowledged, so no acknowledged event is
 * lost.
 *
 * What clients see meanwhile: 200 for every request the service read; once its listener is closed,
 * the gateway answers 503 (`the ingestion service is unavailable`, with `Retry-After`) until it is
 * back. A request the service had not read when it closed the connection is a 503 from the gateway
 * too, and was not stored. No other 5xx, and every request is answered (the gateway stays up).
 */
describe('clean shutdown of a service', () => {
  const spec = useSpecSuite();

  it('stops the ingestion service under load without losing an acknowledged event', async () => {
    const { suite } = spec;
    const ingestion = suite.process('ingestion-0');
    const tracker = new Tracker(await createAccount());
    const tracking = tracker.run(8);
    let signalledAt: number;
    let exit: ProcessExit | undefined;
    try {
      await eventually(() => expect(tracker.acknowledged.length).toBeGreaterThan(300), 60_000, 50);
      signalledAt = Date.now();
      exit = await ingestion.stop('SIGTERM');
      await ingestion.start();
      const backAt = tracker.acknowledged.length;
      await eventually(() => expect(tracker.acknowledged.length).toBeGreaterThan(backAt + 100), 60_000, 50);
    } finally {
      // Also when the service could not be restarted: clients left tracking would hold the run open.
      tracker.stop();
      await tracking;
    }

    expect(exit).toMatchObject({ code: 0, signal: null, killed: false });
    expect(exit?.afterMs).toBeLessThan(GRACE_MS);

    const statuses = new Set(tracker.outcomes.map((outcome) => outcome.status));
    expect([...statuses].filter((status) => status !== 200 && status !== 503)).toEqual([]);
    // Every 503 is the gateway's, for a service it cannot reach, and none came before the signal.
    const unavailable = tracker.outcomes.filter((outcome) => outcome.status === 503);
    expect(tally(unavailable.map((outcome) => outcome.detail ?? ''))).toEqual(
      unavailable.length ? { 'the ingestion service is unavailable': unavailable.length } : {},
    );
    expect(unavailable.filter((outcome) => outcome.at < signalledAt)).toEqual([]);
    // Every request is answered: the gateway stays up.
    expect(tracker.outcomes.filter((outcome) => outcome.status === 0)).toEqual([]);

    const acknowledged = [...tracker.acknowledged].sort((a, b) => a - b);
    await eventuallyStoredEvents(suite, tracker.account.id, acknowledged.length);
    const stored = new Set(await storedNumbers(suite, tracker.account.id));
    expect(acknowledged.filter((n) => !stored.has(n))).toEqual([]);
  }, 300_000);
});

function tally(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
