import type { BusMessage, MailRequested, PayloadOf } from '@guidepost/contracts-events';
import { MailRequestedConsumer } from './mail-requested.consumer';
import { Mailer, type Mail } from './mailer.port';

class RecordingMailer extends Mailer {
  readonly sent: Mail[] = [];
  failNext = false;

  send(mail: Mail): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      return Promise.reject(new Error('SMTP server unavailable'));
    }
    this.sent.push(mail);
    return Promise.resolve();
  }
}

const request = (id: string): BusMessage<PayloadOf<typeof MailRequested>> => ({
  id,
  topic: 'guidepost.mail.mail-requested.v1',
  key: 'job-1',
  occurredAt: '2026-11-21T16:00:00.000Z',
  payload: { to: ['ada@example.com'], subject: 'Your export is ready', text: 'Download: https://example/blobs/x' },
});

const fakeBus = () => ({ subscribe: jest.fn(), publish: jest.fn(), redeliver: jest.fn() });

describe('MailRequestedConsumer', () => {
  let mailer: RecordingMailer;
  let consumer: MailRequestedConsumer;

  beforeEach(() => {
    mailer = new RecordingMailer();
    consumer = new MailRequestedConsumer(fakeBus(), mailer);
  });

  it('subscribes to mail requests as the mail.sender group', () => {
    const bus = fakeBus();
    new MailRequestedConsumer(bus, mailer).onModuleInit();
    expect(bus.subscribe).toHaveBeenCalledWith(expect.objectContaining({ group: 'mail.sender' }));
    expect(bus.subscribe.mock.calls[0][0].topic.name).toBe('guidepost.mail.mail-requested.v1');
  });

  it('sends the requested mail, named by the message id', async () => {
    await consumer.handle(request('m1'));
    expect(mailer.sent).toEqual([{ id: 'm1', ...request('m1').payload }]);
  });

  it('sends a redelivered request once', async () => {
    await consumer.handle(request('m1'));
    await consumer.handle(request('m1'));
    await consumer.handle(request('m2'));
    expect(mailer.sent).toHaveLength(2);
  });

  it('fails when the mail could not be sent, and sends it on redelivery', async () => {
    mailer.failNext = true;
    await expect(consumer.handle(request('m1'))).rejects.toThrow('SMTP server unavailable');
    await consumer.handle(request('m1'));
    expect(mailer.sent).toHaveLength(1);
  });
});
