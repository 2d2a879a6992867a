import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '@guidepost/platform-config';
import { LogMailer } from './log-mailer.adapter';
import { MailRequestedConsumer } from './mail-requested.consumer';
import { Mailer } from './mailer.port';
import { SmtpMailer } from './smtp-mailer.adapter';

/**
 * Provides `Mailer` everywhere (global), picked by the configuration: SMTP when `config.smtpUrl` is set,
 * a log line per mail otherwise; and sends every `MailRequested` message through it. Needs a global
 * `MessageBus`.
 */
@Module({})
export class MailModule {
  static forRoot(config: AppConfig): DynamicModule {
    const { smtpUrl, mailFrom } = config;
    return {
      module: MailModule,
      global: true,
      providers: [
        { provide: Mailer, useFactory: () => (smtpUrl ? new SmtpMailer(smtpUrl, mailFrom) : new LogMailer()) },
        MailRequestedConsumer,
      ],
      exports: [Mailer],
    };
  }
}
