import { createAccount, embeddedPostgresOf, eventStoreEngineOf, signalProcessTree, startServer, type RunningServer } from './support';
import { expectAnsweredThroughFreeze, FREEZE_MS, outcomesOf, Prober, underFreeze } from './support-freezes';
import { completedJob, useServer } from './support-segments';
import { ndjsonBody, startImport } from './support-people';
import { acknowledgedMissingFromHistory, eventsFile, Tracker } from './support-tracking';

const IMPORT_ROWS = 5_000;

/** The standalone shape's own stores, each found among the server's descendants. */
const STORES: Record<string, (server: RunningServer) => Promise<number>> = {
  'the embedded PostgreSQL': embeddedPostgresOf,
  'the event store engine': (server) => eventStoreEngineOf(server),
};

/**
 * Gray failures of the standalone shape's embedded stores: each frozen (SIGSTOP of its process tree:
 * its connections stay open and it answers nothing) for 30 s while clients track events, use every
 * route family and an import runs. Every request is answered in bounded time (a success, or a 503 with
 * `Retry-After`), nothing acknowledged is lost, the import completes, and service is back within
 * seconds of the thaw. This file runs its own server.
 */
describe('the standalone stores frozen (gray failures)', () => {
  let running: RunningServer | undefined;
  let pointBack: (() => void) | undefined;

  beforeAll(async () => {
    running = await startServer({ env: { GUIDEPOST_RATE_LIMIT_PER_SECOND: '100000' } });
    pointBack = useServer(running);
  }, 180_000);

  afterAll(async () => {
    pointBack?.();
    await running?.stop();
  }, 60_000);

  it.each(Object.keys(STORES))(
    'answers every request in bounded time while %s is frozen, loses nothing, and recovers within seconds',
    async (store) => {
      const pid = await STORES[store](running!);
      const tracker = new Tracker(await createAccount());
      const prober = new Prober(await createAccount());
      const importer = await createAccount();
      const ack = await startImport(importer, 'events', ndjsonBody(eventsFile(IMPORT_ROWS)));

      const { frozenAt, thawedAt } = await underFreeze(
        tracker,
        prober,
        () => signalProcessTree(pid, 'SIGSTOP'),
        () => signalProcessTree(pid, 'SIGCONT'),
      );

      expectAnsweredThroughFreeze(outcomesOf(tracker, prober), frozenAt, thawedAt);
      expect(tracker.acknowledged.length).toBeGreaterThan(50);
      // The engine runs at idle priority: on a busy machine the backlog of the freeze takes a while to be stored.
      expect(await acknowledgedMissingFromHistory(tracker, 300_000)).toEqual([]);
      const { completed } = await completedJob(importer, ack, 300_000);
      expect(completed.attributes).toMatchObject({ ingestions_completed: IMPORT_ROWS, ingestions_failed: 0 });
    },
    FREEZE_MS + 600_000,
  );
});
