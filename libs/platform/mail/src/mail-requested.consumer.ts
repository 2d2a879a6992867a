import { Injectable, type OnModuleInit } from '@nestjs/common';
import { MailRequested, type BusMessage, type PayloadOf } from '@guidepost/contracts-events';
import { MessageBus } from '@guidepost/platform-bus';
import { Mailer } from './mailer.port';
import { RecentMessageIds } from './recent-message-ids';

const GROUP = 'mail.sender';
const REMEMBERED_MESSAGES = 10_000;

/**
 * Sends the mail other services request through their outbox. There is no database here, so
 * idempotency is best effort: ids of mail sent by this process are remembered (in memory), which
 * absorbs the usual repeats (the outbox relay handing a message over again because another one of its
 * batch failed, or after a crash between publishing and recording it; Kafka redelivering what was not
 * committed before a rebalance, mostly to the same replica since the key, the job id, picks the
 * partition). After a restart or on another replica a repeated request is sent again, with the same
 * `Message-ID` (see `SmtpMailer`), so a mail system that deduplicates still shows one.
 */
@Injectable()
export class MailRequestedConsumer implements OnModuleInit {
  private readonly sent = new RecentMessageIds(REMEMBERED_MESSAGES);

  constructor(
    private readonly bus: MessageBus,
    private readonly mailer: Mailer,
  ) {}

  onModuleInit(): void {
    this.bus.subscribe({ topic: MailRequested, group: GROUP, handle: (message) => this.handle(message) });
  }

  /** Rejects when the mailer does; the bus then delivers the request again later. */
  async handle(message: BusMessage<PayloadOf<typeof MailRequested>>): Promise<void> {
    if (this.sent.has(message.id)) return;
    await this.mailer.send({ id: message.id, ...message.payload });
    this.sent.add(message.id);
  }
}
