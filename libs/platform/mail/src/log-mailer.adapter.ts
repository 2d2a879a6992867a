import { Injectable, Logger } from '@nestjs/common';
import { Mailer, type Mail } from './mailer.port';

/**
 * The mailer when no SMTP server is configured: one structured log line per mail with recipients,
 * subject and size. The body stays out of info logs because it may hold a signed download link,
 * which is a credential; it is logged at debug level for local troubleshooting.
 */
@Injectable()
export class LogMailer extends Mailer {
  private readonly logger = new Logger('Mail');

  send(mail: Mail): Promise<void> {
    this.logger.log({
      msg: 'mail logged instead of sent: no SMTP server configured',
      id: mail.id,
      to: mail.to,
      subject: mail.subject,
      chars: mail.text.length,
    });
    this.logger.debug({ msg: 'mail body', to: mail.to, subject: mail.subject, text: mail.text });
    return Promise.resolve();
  }
}
