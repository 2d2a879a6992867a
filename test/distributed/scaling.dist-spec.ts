import { completedJob } from '../e2e/support-segments';
import { ndjsonBody, startImport } from '../e2e/support-people';
import { eventsFile, eventuallyStoredEvents, metricTotal, useSpecSuite } from './support';

/** The event sink's count of events it wrote to the event store, per process. */
const SINK_EVENTS = 'guidepost_event_store_events_written_total';
const ROWS = 120_000;

/**
 * Horizontal scaling: with two replicas of the ingestion service (one consumer group per role, topics
 * of several partitions), the event batches of one large import are shared by both replicas' event
 * sinks, and the event store ends with exactly one row per imported line.
 */
describe('two ingestion replicas share one import', () => {
  const spec = useSpecSuite({ ingestionReplicas: 2 });

  it('imports every row exactly once, with both replicas inserting events', async () => {
    const { suite, account } = spec;
    const ack = await startImport(account, 'events', ndjsonBody(eventsFile(ROWS)));
    const { completed } = await completedJob(account, ack, 300_000);
    expect(completed.attributes).toMatchObject({ ingestions_completed: ROWS, ingestions_failed: 0 });

    const stored = await eventuallyStoredEvents(suite, account.id, ROWS);
    expect(stored).toEqual({ rows: ROWS, distinct_ids: ROWS, min_n: 1, max_n: ROWS });

    const perReplica = await Promise.all(['ingestion-0', 'ingestion-1'].map((name) => metricTotal(suite.process(name).url, SINK_EVENTS)));
    // Each replica inserted part of the import; together they inserted all of it (replays may add a few).
    for (const inserted of perReplica) expect(inserted).toBeGreaterThan(0);
    expect(perReplica[0] + perReplica[1]).toBeGreaterThanOrEqual(ROWS);
  }, 420_000);
});
