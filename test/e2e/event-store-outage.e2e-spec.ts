import { readFile } from 'node:fs/promises';
import { api, createAccount, eventStoreEngineOf, eventually, startServer, type RunningServer, type TestAccount } from './support';
import { ndjsonBody, startImport } from './support-people';
import { type AsyncAcknowledgement, completedJob, expectAccepted, useServer } from './support-segments';
import { acknowledgedMissingFromHistory, eventsFile, Tracker } from './support-tracking';

const EXPORTED_ROWS = 20_000;
/** Each kill meets the engine serving again: restarted after 1, 2 and 4 s (it never served a minute in between). */
const KILLS = 3;
const EXPORT_BODY = { format: 'csv', conditions: [['name', '==', 'page_view']], start_time: '2025-01-01T00:00:00Z' };

/**
 * The standalone shape's event store is a process of its own (the ClickHouse engine behind its HTTP
 * front), which the server restarts when it dies. Killed three times, each time once it serves again, while clients track
 * events and an export is asked for: tracking is answered 200 throughout (events wait in the
 * outbox), every acknowledged event reaches history once the engine is back, the export completes
 * with every row, and the server's log says what happened. This file runs its own server.
 */
describe('the standalone event store process killed under load', () => {
  let running: RunningServer | undefined;
  let pointBack: (() => void) | undefined;
  let tracker: Tracker;
  let exported: TestAccount;
  let exportJob: Awaited<ReturnType<typeof completedJob>>;
  const enginePids: number[] = [];

  beforeAll(async () => {
    running = await startServer({ env: { GUIDEPOST_RATE_LIMIT_PER_SECOND: '100000' } });
    pointBack = useServer(running);
    exported = await createAccount();
    const { completed } = await completedJob(
      exported,
      await startImport(exported, 'events', ndjsonBody(eventsFile(EXPORTED_ROWS))),
      120_000,
    );
    expect(completed.attributes).toMatchObject({ ingestions_completed: EXPORTED_ROWS });

    tracker = new Tracker(await createAccount());
    const tracking = tracker.run(8);
    await eventually(() => expect(tracker.acknowledged.length).toBeGreaterThan(300), 60_000, 50);
    let exportAck: AsyncAcknowledgement | undefined;
    for (let kill = 0; kill < KILLS; kill += 1) {
      const pid = await eventually(() => eventStoreEngineOf(running!, enginePids), 60_000, 20);
      enginePids.push(pid);
      // Serving again (the server is ready once its store answers) before it dies again.
      await eventually(async () => expect((await fetch(`${running!.baseUrl}/health/ready`)).status).toBe(200), 60_000, 50);
      process.kill(pid, 'SIGKILL');
      // Asked for while the store is down: the export has to wait for it.
      exportAck ??= await expectAccepted(exported, await api(exported, 'POST', '/export/events', { json: EXPORT_BODY }));
    }
    enginePids.push(await eventually(() => eventStoreEngineOf(running!, enginePids), 60_000, 100));
    const backAt = tracker.acknowledged.length;
    await eventually(() => expect(tracker.acknowledged.length).toBeGreaterThan(backAt + 300), 60_000, 50);
    tracker.stop();
    await tracking;
    exportJob = await completedJob(exported, exportAck!, 180_000);
  }, 600_000);

  afterAll(async () => {
    // A set-up that failed half way would leave the clients tracking, and the test run open.
    tracker?.stop();
    pointBack?.();
    await running?.stop();
  }, 60_000);

  it('answers every track request 200 while the store is away', () => {
    expect(Object.fromEntries(tracker.refused)).toEqual({});
    expect(tracker.acknowledged.length).toBeGreaterThan(600);
  });

  it('restarts the engine after each death, and logs it', async () => {
    expect(new Set(enginePids).size).toBe(KILLS + 1);
    const log = await readFile(running!.logFile, 'utf8');
    for (const pid of enginePids.slice(0, KILLS)) {
      expect(log).toContain(`event store engine (pid ${pid}) stopped (SIGKILL); restarting in`);
    }
  });

  // Past the 120 s the history is waited for: a test ended by Jest's timeout would leave that wait
  // polling, and once afterAll points the harness back at the shared server, its requests carry this
  // server's keys there, fail authentication and get the shared server's address throttled.
  it('stores every acknowledged event once the engine is back', async () => {
    expect(await acknowledgedMissingFromHistory(tracker, 120_000)).toEqual([]);
  }, 180_000);

  it('completes the export that was reading the store, with every row', () => {
    expect(exportJob.completed.attributes).toMatchObject({ rows: EXPORTED_ROWS, format: 'csv' });
  });
});
