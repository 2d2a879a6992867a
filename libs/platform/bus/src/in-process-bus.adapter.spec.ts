import { type BusMessage, MailRequested, type PayloadOf } from '@guidepost/contracts-events';
import { classifyFailure, PermanentFailure, TransientFailure } from '@guidepost/platform-failures';
import { InProcessBus } from './in-process-bus.adapter';

type Mail = BusMessage<PayloadOf<typeof MailRequested>>;

function mail(id: string): Mail {
  return {
    id,
    topic: MailRequested.name,
    key: id,
    payload: { to: ['ops@example.com'], subject: id, text: id },
    occurredAt: new Date().toISOString(),
  };
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected publish to fail');
    },
    (error: unknown) => error,
  );
}

describe('InProcessBus (the standalone shape) follows the failure classes of the Kafka consumers', () => {
  it('rejects a transient failure at once, without giving the message up, so the outbox relay delivers it again', async () => {
    const bus = new InProcessBus();
    const givenUp: string[] = [];
    let runs = 0;
    bus.subscribe({
      topic: MailRequested,
      group: 'mail.sender',
      handle: () => {
        runs += 1;
        return Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:25'), { code: 'ECONNREFUSED' }));
      },
      onGiveUp: (message) => Promise.resolve(void givenUp.push(message.id)),
    });
    const error = await failureOf(bus.publish([mail('m1')]));
    expect(classifyFailure(error)).toBe('transient');
    expect(runs).toBe(1);
    expect(givenUp).toEqual([]);
  });

  it('gives a permanently failing message up for its group only: the subscription is told, the other groups still get it, and the relay is told to dead-letter it', async () => {
    const bus = new InProcessBus();
    const givenUp: string[] = [];
    const delivered: string[] = [];
    bus.subscribe({
      topic: MailRequested,
      group: 'failing',
      handle: (message) => (message.id === 'poison' ? Promise.reject(new PermanentFailure('mailbox does not exist')) : Promise.resolve()),
      onGiveUp: (message, reason) => Promise.resolve(void givenUp.push(`${message.id}: ${reason}`)),
    });
    bus.subscribe({ topic: MailRequested, group: 'healthy', handle: (message) => Promise.resolve(void delivered.push(message.id)) });

    const error = await failureOf(bus.publish([mail('first'), mail('poison'), mail('last')]));
    expect(classifyFailure(error)).toBe('permanent');
    expect((error as Error).message).toContain('failing gave up on message poison: mailbox does not exist');
    expect(givenUp).toEqual(['poison: mailbox does not exist']);
    expect(delivered).toEqual(['first', 'poison', 'last']);
  });

  it('splits a failing batch so that only the poison message is given up', async () => {
    const bus = new InProcessBus();
    const written: string[] = [];
    const givenUp: string[] = [];
    bus.subscribe({
      topic: MailRequested,
      group: 'sink',
      handleBatch: (messages) => {
        if (messages.some((message) => message.id === 'poison')) return Promise.reject(new PermanentFailure('cannot be stored'));
        written.push(...messages.map((message) => message.id));
        return Promise.resolve();
      },
      onGiveUp: (message) => Promise.resolve(void givenUp.push(message.id)),
    });
    await failureOf(bus.publish([mail('a'), mail('poison'), mail('b')]));
    expect(written).toEqual(['a', 'b']);
    expect(givenUp).toEqual(['poison']);
  });

  it('keeps a message whose handler was interrupted by the shutdown for the next start', async () => {
    const bus = new InProcessBus();
    bus.subscribe({
      topic: MailRequested,
      group: 'worker',
      handle: () => {
        bus.beforeApplicationShutdown();
        return Promise.reject(new Error('interrupted'));
      },
    });
    const error = await failureOf(bus.publish([mail('m1')]));
    expect(error).toBeInstanceOf(TransientFailure);
  });

  it('redelivers a message to one group only, running its handler at once, and says when that group gives it up again', async () => {
    const bus = new InProcessBus();
    const handled: string[] = [];
    let refusing = true;
    bus.subscribe({
      topic: MailRequested,
      group: 'first',
      handle: (message) => {
        if (refusing) return Promise.reject(new PermanentFailure('mailbox does not exist'));
        handled.push(`first:${message.id}`);
        return Promise.resolve();
      },
    });
    bus.subscribe({
      topic: MailRequested,
      group: 'second',
      handle: (message) => Promise.resolve(void handled.push(`second:${message.id}`)),
    });

    const again = await failureOf(bus.redeliver(mail('m1'), 'first'));
    expect(classifyFailure(again)).toBe('permanent');
    expect((again as Error).message).toContain('first gave up on message m1: mailbox does not exist');
    refusing = false;
    await bus.redeliver(mail('m1'), 'first');
    expect(handled).toEqual(['first:m1']);
    await expect(bus.redeliver(mail('m1'), 'third')).rejects.toThrow(`no consumer group third subscribes to ${MailRequested.name}`);
  });
});
