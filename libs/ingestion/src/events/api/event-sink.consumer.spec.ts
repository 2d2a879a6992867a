import { Logger } from '@nestjs/common';
import type { BusMessage, PayloadOf, RecordedEvent } from '@guidepost/contracts-events';
import { EventsAccepted } from '@guidepost/contracts-events';
import type { MessageBus } from '@guidepost/platform-bus';
import { loadConfig } from '@guidepost/platform-config';
import { MetricsRegistry } from '@guidepost/platform-observability';
import type { AccountEvent, EventStore } from '../application/event-store.port';
import { EventWrites, MAX_EVENTS_PER_INSERT } from '../application/event-writes';
import { EventSinkConsumer } from './event-sink.consumer';

const ACCEPTED_AT = '2024-05-01T09:30:01.000Z';

function event(eventId: string, timestamp = '2024-05-01T09:30:00.000Z'): RecordedEvent {
  return { eventId, userId: 'u1', name: 'viewed', timestamp, attributes: {}, receivedAt: ACCEPTED_AT };
}

function message(
  id: string,
  accountId: string,
  events: RecordedEvent[],
  occurredAt = ACCEPTED_AT,
): BusMessage<PayloadOf<typeof EventsAccepted>> {
  return { id, topic: EventsAccepted.name, key: id, occurredAt, payload: { accountId, events } };
}

/** The events of each insert, as `account/event`. */
type Inserts = string[][];

function sinkOver(store: EventStore, maxRows = 1_000, maxWaitMs = 1_000): { sink: EventSinkConsumer; metrics: MetricsRegistry } {
  const metrics = new MetricsRegistry();
  const config = loadConfig({ GUIDEPOST_EVENT_SINK_MAX_ROWS: String(maxRows), GUIDEPOST_EVENT_SINK_MAX_WAIT_MS: String(maxWaitMs) });
  return { sink: new EventSinkConsumer({} as MessageBus, new EventWrites(store, metrics), metrics, config), metrics };
}

function recordingStore(inserts: Inserts): EventStore {
  return {
    insert: (events: readonly AccountEvent[]) => {
      inserts.push(events.map(({ accountId, event }) => `${accountId}/${event.eventId}`));
      return Promise.resolve();
    },
  } as unknown as EventStore;
}

async function metric(metrics: MetricsRegistry, name: string): Promise<string> {
  return metrics.getSingleMetricAsString(name);
}

describe('EventSinkConsumer', () => {
  let inserts: Inserts;

  beforeEach(() => {
    // Messages accepted now: their events wait for company up to the configured time.
    jest.useFakeTimers({ now: new Date(ACCEPTED_AT) });
    inserts = [];
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('gathers the events of concurrent batches, of any accounts, into one insert once the oldest has waited', async () => {
    const { sink, metrics } = sinkOver(recordingStore(inserts));
    const first = sink.write([message('m1', 'a1', [event('e1'), event('e2')]), message('m2', 'a2', [event('e3')])]);
    await jest.advanceTimersByTimeAsync(500);
    const second = sink.write([message('m3', 'a1', [event('e4')])]);
    expect(inserts).toEqual([]);

    await jest.advanceTimersByTimeAsync(500);
    await Promise.all([first, second]);
    expect(inserts).toEqual([['a1/e1', 'a1/e2', 'a2/e3', 'a1/e4']]);
    expect(await metric(metrics, 'guidepost_event_store_events_written_total')).toContain('guidepost_event_store_events_written_total 4');
    expect(await metric(metrics, 'guidepost_event_store_insert_duration_seconds')).toContain(
      'guidepost_event_store_insert_duration_seconds_count 1',
    );
    expect(await metric(metrics, 'guidepost_event_store_insert_rows')).toContain('guidepost_event_store_insert_rows_sum 4');
  });

  it('measures each stored event from when it was received to the insert that made it readable', async () => {
    const { sink, metrics } = sinkOver(recordingStore(inserts));
    const written = sink.write([message('m1', 'a1', [event('e1'), event('e2')])]);
    await jest.advanceTimersByTimeAsync(1_000);
    await written;
    const text = await metric(metrics, 'guidepost_event_capture_to_queryable_seconds');
    expect(text).toContain('guidepost_event_capture_to_queryable_seconds_count 2');
    expect(text).toContain('guidepost_event_capture_to_queryable_seconds_bucket{le="0.5"} 0');
    expect(text).toContain('guidepost_event_capture_to_queryable_seconds_bucket{le="1"} 2');
  });

  it('inserts at once when eventSinkMaxRows events are gathered', async () => {
    const { sink } = sinkOver(recordingStore(inserts), 3);
    const first = sink.write([message('m1', 'a1', [event('e1'), event('e2')])]);
    const second = sink.write([message('m2', 'a1', [event('e3')])]);
    await Promise.all([first, second]);
    expect(inserts).toEqual([['a1/e1', 'a1/e2', 'a1/e3']]);
  });

  it('inserts a batch accepted long ago at once: a backlog does not wait again', async () => {
    const { sink } = sinkOver(recordingStore(inserts));
    const written = sink.write([message('m1', 'a1', [event('e1')], '2024-05-01T09:00:00.000Z')]);
    await jest.advanceTimersByTimeAsync(0);
    await written;
    expect(inserts).toEqual([['a1/e1']]);
  });

  it('splits what it gathered into inserts of at most the maximum', async () => {
    const { sink } = sinkOver(recordingStore(inserts), MAX_EVENTS_PER_INSERT + 1);
    const many = Array.from({ length: MAX_EVENTS_PER_INSERT + 1 }, (_, index) => event(`e${index}`));
    await sink.write([message('m1', 'a1', many)]);
    expect(inserts.map((insert) => insert.length)).toEqual([MAX_EVENTS_PER_INSERT, 1]);
  });

  it('leaves out, counts and logs an event the store cannot hold, writing the rest', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { sink, metrics } = sinkOver(recordingStore(inserts), 1);
    await sink.write([message('m1', 'a1', [event('e1', '2300-01-01T00:00:00.000Z'), event('e2')])]);
    expect(inserts).toEqual([['a1/e2']]);
    expect(await metric(metrics, 'guidepost_event_store_events_rejected_total')).toContain('guidepost_event_store_events_rejected_total 1');
    expect(logged).toHaveBeenCalledWith(expect.stringMatching(/^event e1 of account a1 \(message m1\) was not stored: timestamp 2300/));
    logged.mockRestore();
  });

  it('fails every batch the failed insert carried, so that the bus delivers each again, and counts the failure', async () => {
    const failing = { insert: () => Promise.reject(new Error('store down')) } as unknown as EventStore;
    const { sink, metrics } = sinkOver(failing);
    const batches = [sink.write([message('m1', 'a1', [event('e1')])]), sink.write([message('m2', 'a2', [event('e2')])])];
    const settled = Promise.allSettled(batches);
    await jest.advanceTimersByTimeAsync(1_000);
    expect((await settled).map((outcome) => outcome.status === 'rejected' && (outcome.reason as Error).message)).toEqual([
      'store down',
      'store down',
    ]);
    expect(await metric(metrics, 'guidepost_event_store_insert_failures_total')).toContain('guidepost_event_store_insert_failures_total 1');
  });

  it('inserts what it gathered when the application stops, without waiting out the time', async () => {
    const { sink } = sinkOver(recordingStore(inserts));
    const written = sink.write([message('m1', 'a1', [event('e1')])]);
    await sink.beforeApplicationShutdown();
    await written;
    expect(inserts).toEqual([['a1/e1']]);
  });
});
