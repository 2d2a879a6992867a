import { Global, Module } from '@nestjs/common';
import { LogMailer } from './log-mailer.adapter';
import { MailRequestedConsumer } from './mail-requested.consumer';
import { Mailer } from './mailer.port';

/**
 * Provides `Mailer` (the log adapter) and sends every `MailRequested` message through it. Needs a
 * global `MessageBus`.
 */
@Global()
@Module({
  providers: [{ provide: Mailer, useClass: LogMailer }, MailRequestedConsumer],
  exports: [Mailer],
})
export class MailModule {}
