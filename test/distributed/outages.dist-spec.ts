import { api, createAccount, type TestAccount } from '../e2e/support';
import { completedJob, expectAccepted } from '../e2e/support-segments';
import { ndjsonBody, startImport } from '../e2e/support-people';
import { delay, eventsFile, eventuallyStoredEvents, infrastructure, missingNumbers, storedEvents, Tracker, useSpecSuite } from './support';

/** Longer than a minute, as the promise says: far past every in-process retry budget the services had. */
const OUTAGE_MS = Number(process.env['GUIDEPOST_OUTAGE_SECONDS'] ?? '65') * 1_000;
const IMPORT_ROWS = 60_000;
/** Events of the account exported during each outage. */
const EXPORTED_ROWS = 20_000;

/**
 * Nothing acknowledged is lost when a store goes away: each server the distributed shape depends on is
 * stopped for longer than a minute while clients track events, an import is being read and an export
 * is being written, then started again. Afterwards every acknowledged event and every imported row is
 * stored exactly once, and the import's and the export's jobs complete with exact counts (they waited
 * for the store instead of giving up).
 */
describe('outages of the stores', () => {
  const spec = useSpecSuite();
  let exported: TestAccount;

  beforeAll(async () => {
    exported = await createAccount();
    const { completed } = await completedJob(
      exported,
      await startImport(exported, 'events', ndjsonBody(eventsFile(EXPORTED_ROWS))),
      120_000,
    );
    expect(completed.attributes).toMatchObject({ ingestions_completed: EXPORTED_ROWS });
    await eventuallyStoredEvents(spec.suite, exported.id, EXPORTED_ROWS);
  }, 240_000);

  it.each(['clickhouse', 'postgres', 'minio', 'kafka'] as const)(
    'loses nothing acknowledged while %s is down for over a minute',
    async (server) => {
      const { suite } = spec;
      const tracker = new Tracker(await createAccount());
      const importer = await createAccount();
      const tracking = tracker.run();
      const ack = await startImport(importer, 'events', ndjsonBody(eventsFile(IMPORT_ROWS)));
      const exportBody = { format: 'csv', conditions: [['name', '==', 'page_view']], start_time: '2025-01-01T00:00:00Z' };
      const exportAck = await expectAccepted(exported, await api(exported, 'POST', '/export/events', { json: exportBody }));
      try {
        await delay(500);
        await infrastructure('stop', server);
        await delay(OUTAGE_MS);
        await infrastructure('start', server);
        await delay(3_000);
      } finally {
        // Also when the server could not be stopped or started: clients left tracking would hold the run open.
        tracker.stop();
        await tracking;
      }

      const { completed } = await completedJob(importer, ack, 300_000);
      expect(completed.attributes).toMatchObject({ ingestions_completed: IMPORT_ROWS, ingestions_failed: 0, requests_failed: 0 });
      const exportJob = await completedJob(exported, exportAck, 300_000);
      expect(exportJob.completed.attributes).toMatchObject({ rows: EXPORTED_ROWS, format: 'csv' });
      const imported = await eventuallyStoredEvents(suite, importer.id, IMPORT_ROWS);
      expect(imported).toEqual({ rows: IMPORT_ROWS, distinct_ids: IMPORT_ROWS, min_n: 1, max_n: IMPORT_ROWS });

      const acknowledged = [...tracker.acknowledged].sort((a, b) => a - b);
      expect(acknowledged.length).toBeGreaterThan(50);
      expect(await missingNumbers(suite, tracker.account.id, acknowledged)).toEqual([]);
      // Exactly once: no event id twice, whatever was redelivered.
      const { rows, distinct_ids } = await storedEvents(suite, tracker.account.id);
      expect(rows).toBe(distinct_ids);
    },
    OUTAGE_MS + 420_000,
  );
});
