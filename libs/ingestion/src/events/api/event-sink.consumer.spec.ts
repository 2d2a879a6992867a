import { Logger } from '@nestjs/common';
import type { BusMessage, PayloadOf, RecordedEvent } from '@guidepost/contracts-events';
import { EventsAccepted } from '@guidepost/contracts-events';
import type { MessageBus } from '@guidepost/platform-bus';
import { MetricsRegistry } from '@guidepost/platform-observability';
import type { EventStore } from '../application/event-store.port';
import { EventSinkConsumer, MAX_EVENTS_PER_INSERT } from './event-sink.consumer';

function event(eventId: string, timestamp = '2024-05-01T09:30:00.000Z'): RecordedEvent {
  return { eventId, userId: 'u1', name: 'viewed', timestamp, attributes: {}, receivedAt: '2024-05-01T09:30:01.000Z' };
}

function message(id: string, accountId: string, events: RecordedEvent[]): BusMessage<PayloadOf<typeof EventsAccepted>> {
  return { id, topic: EventsAccepted.name, key: id, occurredAt: '2024-05-01T09:30:01.000Z', payload: { accountId, events } };
}

describe('EventSinkConsumer', () => {
  let inserts: { accountId: string; eventIds: string[] }[];
  let metrics: MetricsRegistry;
  let sink: EventSinkConsumer;

  beforeEach(() => {
    inserts = [];
    const store = {
      insert: (accountId: string, events: readonly RecordedEvent[]) => {
        inserts.push({ accountId, eventIds: events.map((e) => e.eventId) });
        return Promise.resolve();
      },
    } as unknown as EventStore;
    metrics = new MetricsRegistry();
    sink = new EventSinkConsumer({} as MessageBus, store, metrics);
  });

  it('writes a batch with one insert per account, in message order, and counts the events', async () => {
    await sink.write([message('m1', 'a1', [event('e1'), event('e2')]), message('m2', 'a2', [event('e3')]), message('m3', 'a1', [event('e4')])]);
    expect(inserts).toEqual([
      { accountId: 'a1', eventIds: ['e1', 'e2', 'e4'] },
      { accountId: 'a2', eventIds: ['e3'] },
    ]);
    expect(await metrics.getSingleMetricAsString('guidepost_event_store_events_written_total')).toContain('guidepost_event_store_events_written_total 4');
  });

  it('splits an account’s events into inserts of at most the maximum', async () => {
    const many = Array.from({ length: MAX_EVENTS_PER_INSERT + 1 }, (_, index) => event(`e${index}`));
    await sink.write([message('m1', 'a1', many)]);
    expect(inserts.map((insert) => insert.eventIds.length)).toEqual([MAX_EVENTS_PER_INSERT, 1]);
  });

  it('leaves out, counts and logs an event the store cannot hold, writing the rest', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    await sink.write([message('m1', 'a1', [event('e1', '2300-01-01T00:00:00.000Z'), event('e2')])]);
    expect(inserts).toEqual([{ accountId: 'a1', eventIds: ['e2'] }]);
    expect(await metrics.getSingleMetricAsString('guidepost_event_store_events_rejected_total')).toContain('guidepost_event_store_events_rejected_total 1');
    expect(logged).toHaveBeenCalledWith(expect.stringMatching(/^event e1 of account a1 \(message m1\) was not stored: timestamp 2300/));
    logged.mockRestore();
  });

  it('fails the batch when an insert fails, so that the bus delivers it again', async () => {
    const failing = { insert: () => Promise.reject(new Error('store down')) } as unknown as EventStore;
    const failingSink = new EventSinkConsumer({} as MessageBus, failing, new MetricsRegistry());
    await expect(failingSink.write([message('m1', 'a1', [event('e1')])])).rejects.toThrow('store down');
  });
});
