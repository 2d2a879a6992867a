import { api, createAccount, eventually, expectJson, type JobDetail } from '../e2e/support';
import { completedJob } from '../e2e/support-segments';
import { ndjsonBody, startImport } from '../e2e/support-people';
import { delay, eventsFile, eventuallyStoredEvents, infrastructure, missingNumbers, Tracker, useSpecSuite } from './support';

const IMPORT_ROWS = 200_000;

/**
 * Crash safety of the distributed shape: the ingestion service killed with SIGKILL in the middle of a
 * large import finishes it after a restart with every row exactly once; a restart of the Kafka broker
 * while events are tracked loses none of the acknowledged ones.
 */
describe('crash safety', () => {
  const spec = useSpecSuite();

  it('finishes an import interrupted by kill -9 with every row exactly once', async () => {
    const { suite, account } = spec;
    const ingestion = suite.process('ingestion-0');
    const ack = await startImport(account, 'events', ndjsonBody(eventsFile(IMPORT_ROWS)));
    // Killed once the import is under way: some rows are stored, the job is not finished.
    await eventually(async () => {
      const job = await expectJson<JobDetail>(await api(account, 'GET', `/jobs/${ack.job_id}`), 200);
      if (job.status !== 'IN_PROGRESS' || !job.events.some((event) => event.name === 'Ingesting')) {
        throw new Error(`the import is not under way: ${job.status} ${JSON.stringify(job.events.map((event) => event.name))}`);
      }
    }, 120_000, 100);
    await ingestion.stop('SIGKILL');
    await ingestion.start();

    const { completed } = await completedJob(account, ack, 300_000);
    expect(completed.attributes).toMatchObject({ ingestions_completed: IMPORT_ROWS, ingestions_failed: 0 });
    const stored = await eventuallyStoredEvents(suite, account.id, IMPORT_ROWS);
    expect(stored).toEqual({ rows: IMPORT_ROWS, distinct_ids: IMPORT_ROWS, min_n: 1, max_n: IMPORT_ROWS });
  }, 600_000);

  it('keeps every acknowledged event across a restart of the Kafka broker', async () => {
    const { suite } = spec;
    // An account of its own, so that the store holds only the tracked events of this test.
    const tracker = new Tracker(await createAccount());
    const tracking = tracker.run();
    await delay(2_000);
    await infrastructure('stop', 'kafka');
    await delay(3_000);
    await infrastructure('start', 'kafka');
    await delay(2_000);
    tracker.stop();
    await tracking;

    const acknowledged = tracker.acknowledged.sort((a, b) => a - b);
    expect(acknowledged.length).toBeGreaterThan(100);
    const trackAccount = tracker.account;
    expect(await missingNumbers(suite, trackAccount.id, acknowledged)).toEqual([]);
  }, 300_000);
});
