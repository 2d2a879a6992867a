import { completedJob } from '../e2e/support-segments';
import { ndjsonBody, startImport } from '../e2e/support-people';
import { createAccount, eventually } from '../e2e/support';
import { eventsFile, eventuallyStoredEvents, metricTotal, missingNumbers, Tracker, useSpecSuite } from './support';

/** Each ingestion process's count of events it wrote to the event store (tracked ones by its sink, imported ones by its import worker). */
const EVENTS_WRITTEN = 'guidepost_event_store_events_written_total';
const ROWS = 120_000;
const TRACKED = 600;

/**
 * Horizontal scaling: with two replicas of the ingestion service (one consumer group per role, topics
 * of several partitions), tracked events are shared by both replicas' event sinks, while one replica
 * imports a large file straight into the event store; the store ends with exactly one row per
 * imported line and every acknowledged event.
 */
describe('two ingestion replicas', () => {
  const spec = useSpecSuite({ ingestionReplicas: 2 });

  it('import every row exactly once and share the tracked events, both replicas writing events', async () => {
    const { suite, account } = spec;
    const tracker = new Tracker(await createAccount());
    const tracking = tracker.run(4);
    const ack = await startImport(account, 'events', ndjsonBody(eventsFile(ROWS)));
    const { completed } = await completedJob(account, ack, 300_000);
    await eventually(() => expect(tracker.acknowledged.length).toBeGreaterThanOrEqual(TRACKED), 120_000, 100);
    tracker.stop();
    await tracking;
    expect(completed.attributes).toMatchObject({ ingestions_completed: ROWS, ingestions_failed: 0 });

    // The import's events are in the store when its job completes.
    const stored = await eventuallyStoredEvents(suite, account.id, ROWS);
    expect(stored).toEqual({ rows: ROWS, distinct_ids: ROWS, min_n: 1, max_n: ROWS });
    expect(await missingNumbers(suite, tracker.account.id, tracker.acknowledged)).toEqual([]);

    const perReplica = await Promise.all(
      ['ingestion-0', 'ingestion-1'].map((name) => metricTotal(suite.process(name).url, EVENTS_WRITTEN)),
    );
    // Each replica's sink took part of the tracked events; one also wrote the import (replays may add a few).
    for (const written of perReplica) expect(written).toBeGreaterThan(0);
    expect(perReplica[0] + perReplica[1]).toBeGreaterThanOrEqual(ROWS + tracker.acknowledged.length);
  }, 420_000);
});
