import { api, createAccount, type TestAccount } from '../e2e/support';
import { expectAnsweredThroughFreeze, FREEZE_MS, outcomesOf, Prober, underFreeze } from '../e2e/support-freezes';
import { completedJob, expectAccepted } from '../e2e/support-segments';
import { ndjsonBody, startImport } from '../e2e/support-people';
import { eventsFile, eventuallyStoredEvents, infrastructure, missingNumbers, storedEvents, Tracker, useSpecSuite } from './support';

const IMPORT_ROWS = 20_000;
const EXPORTED_ROWS = 5_000;

/**
 * Gray failures: each store the distributed shape depends on is frozen (SIGSTOP: its connections stay
 * open and it answers nothing, as with a stalled disk or a partition) for 30 s while clients track
 * events, use every route family, and an import and an export run. Every request is answered within a
 * bounded time (a success, or a 503 with `Retry-After`; never a hang until the client gives up), nothing
 * acknowledged is lost, every job finishes after the thaw, and service is back within seconds of it.
 */
describe('frozen stores (gray failures)', () => {
  const spec = useSpecSuite();
  let exported: TestAccount;

  beforeAll(async () => {
    exported = await createAccount();
    await completedJob(exported, await startImport(exported, 'events', ndjsonBody(eventsFile(EXPORTED_ROWS))), 120_000);
    await eventuallyStoredEvents(spec.suite, exported.id, EXPORTED_ROWS);
  }, 240_000);

  it.each(['postgres', 'kafka', 'clickhouse', 'minio'] as const)(
    'answers every request in bounded time while %s is frozen, loses nothing, and recovers within seconds',
    async (store) => {
      const { suite } = spec;
      const tracker = new Tracker(await createAccount());
      const prober = new Prober(await createAccount());
      const importer = await createAccount();
      const ack = await startImport(importer, 'events', ndjsonBody(eventsFile(IMPORT_ROWS)));
      const exportBody = { format: 'json', conditions: [['name', '==', 'page_view']], start_time: '2025-01-01T00:00:00Z' };
      const exportAck = await expectAccepted(exported, await api(exported, 'POST', '/export/events', { json: exportBody }));

      const { frozenAt, thawedAt } = await underFreeze(
        tracker,
        prober,
        () => infrastructure('freeze', store),
        () => infrastructure('thaw', store),
      );

      expectAnsweredThroughFreeze(outcomesOf(tracker, prober), frozenAt, thawedAt);
      const acknowledged = [...tracker.acknowledged].sort((a, b) => a - b);
      expect(acknowledged.length).toBeGreaterThan(50);
      expect(await missingNumbers(suite, tracker.account.id, acknowledged)).toEqual([]);
      const { completed } = await completedJob(importer, ack, 300_000);
      expect(completed.attributes).toMatchObject({ ingestions_completed: IMPORT_ROWS, ingestions_failed: 0 });
      const exportJob = await completedJob(exported, exportAck, 300_000);
      expect(exportJob.completed.attributes).toMatchObject({ rows: EXPORTED_ROWS });
      expect(await eventuallyStoredEvents(suite, importer.id, IMPORT_ROWS)).toMatchObject({ rows: IMPORT_ROWS, distinct_ids: IMPORT_ROWS });
      const { rows, distinct_ids } = await storedEvents(suite, tracker.account.id);
      expect(rows).toBe(distinct_ids);
    },
    FREEZE_MS + 420_000,
  );
});
