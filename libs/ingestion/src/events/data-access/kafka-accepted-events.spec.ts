import { EventsAccepted, type RecordedEvent } from '@guidepost/contracts-events';
import type { MessageBus, OutgoingMessage } from '@guidepost/platform-bus';
import { classifyFailure } from '@guidepost/platform-failures';
import { TransientFailure } from '@guidepost/platform-failures';
import { KafkaAcceptedEvents } from './kafka-accepted-events';

/** A bus whose publishes the test answers by hand, as the broker's acknowledgement would. */
class HandAnsweredBus {
  readonly published: OutgoingMessage[][] = [];
  private readonly answers: { resolve: () => void; reject: (error: Error) => void }[] = [];

  publish(messages: readonly OutgoingMessage[]): Promise<void> {
    this.published.push([...messages]);
    return new Promise((resolve, reject) => this.answers.push({ resolve, reject }));
  }

  acknowledge(): void {
    this.answers.shift()!.resolve();
  }

  fail(error: Error): void {
    this.answers.shift()!.reject(error);
  }
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function event(eventId: string): RecordedEvent {
  return {
    eventId,
    userId: 'u1',
    name: 'page_view',
    timestamp: '2025-01-01T00:00:00.000Z',
    attributes: {},
    receivedAt: '2025-01-01T00:00:01.000Z',
  };
}

function setUp(deadlineMs = 60_000) {
  const bus = new HandAnsweredBus();
  return { bus, log: new KafkaAcceptedEvents(bus as unknown as MessageBus, deadlineMs) };
}

describe('KafkaAcceptedEvents.append', () => {
  it('publishes one EventsAccepted message per account in one publish, each keyed by its own id', async () => {
    const { bus, log } = setUp();
    const appended = log.append([
      { accountId: 'a1', events: [event('e1'), event('e2')] },
      { accountId: 'a2', events: [event('e3')] },
    ]);
    bus.acknowledge();
    await appended;

    expect(bus.published).toHaveLength(1);
    const [first, second] = bus.published[0];
    expect(first).toMatchObject({
      topic: EventsAccepted.name,
      payload: { accountId: 'a1', events: [{ eventId: 'e1' }, { eventId: 'e2' }] },
    });
    expect(second).toMatchObject({ topic: EventsAccepted.name, payload: { accountId: 'a2', events: [{ eventId: 'e3' }] } });
    expect(first.key).toBe(first.id);
    expect(first.id).not.toBe(second.id);
  });

  it('resolves only once the broker acknowledged, and rejects with the failure the publish had', async () => {
    const { bus, log } = setUp();
    let resolved = false;
    const acknowledged = log.append([{ accountId: 'a1', events: [event('e1')] }]).then(() => (resolved = true));
    await settle();
    expect(resolved).toBe(false);
    bus.acknowledge();
    await acknowledged;
    expect(resolved).toBe(true);

    const refused = log.append([{ accountId: 'a1', events: [event('e2')] }]);
    bus.fail(new Error('broker gone'));
    await expect(refused).rejects.toThrow('broker gone');
  });

  it('gives up after the deadline with a transient failure (a 503 with Retry-After), whatever the publish does later', async () => {
    const { bus, log } = setUp(20);
    const overdue = log.append([{ accountId: 'a1', events: [event('e1')] }]);
    await expect(overdue).rejects.toThrow(new TransientFailure('Kafka did not answer within 20 ms'));
    await overdue.catch((error: unknown) => expect(classifyFailure(error)).toBe('transient'));
    // A late failure of the abandoned publish reaches nobody (no unhandled rejection fails the run).
    bus.fail(new Error('broker gone'));
    await settle();
  });
});
