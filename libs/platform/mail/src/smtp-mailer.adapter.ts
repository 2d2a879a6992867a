import { createHash } from 'node:crypto';
import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import addressparser from 'nodemailer/lib/addressparser';
import SMTPTransport from 'nodemailer/lib/smtp-transport';
import { Mailer, type Mail } from './mailer.port';

/**
 * A stuck server must not hold the mail consumer for minutes (nodemailer waits up to 10 minutes for a
 * silent socket): the send fails and the bus delivers the request again. Query parameters of the SMTP
 * URL (`?socketTimeout=60000`) override these.
 */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** Thrown when the server refused every recipient for good (5xx): the same mail can never be delivered. */
export class MailRefusedError extends Error {
  readonly permanent = true;
  constructor(to: readonly string[], reason: string) {
    super(`the SMTP server refused every recipient (${to.join(', ')}): ${reason}`);
    this.name = 'MailRefusedError';
  }
}

/**
 * Sends mail through the SMTP server of `GUIDEPOST_SMTP_URL` (`smtp://` or `smtps://`, credentials in
 * the URL), from `GUIDEPOST_MAIL_FROM`. Resolves once the server accepted the mail for at least one
 * recipient; recipients it refused are logged, since sending again would repeat the mail to the others.
 */
export class SmtpMailer extends Mailer implements OnApplicationShutdown {
  private readonly logger = new Logger('Mail');
  private readonly transport: Transporter<SMTPTransport.SentMessageInfo>;
  private readonly messageIdDomain: string;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    super();
    this.transport = createTransport(new SMTPTransport({ ...TIMEOUTS, url: smtpUrl }));
    this.messageIdDomain = domainOf(from);
  }

  async send(mail: Mail): Promise<void> {
    const messageId = `<${createHash('sha256').update(mail.id).digest('hex')}@${this.messageIdDomain}>`;
    const info = await this.transport
      .sendMail({ from: this.from, to: [...mail.to], subject: mail.subject, text: mail.text, messageId })
      .catch((error: unknown) => {
        throw refusedForGood(error) ? new MailRefusedError(mail.to, (error as Error).message) : error;
      });
    if (info.rejected.length > 0) {
      this.logger.warn({
        msg: 'mail sent, but the SMTP server refused some recipients',
        id: mail.id,
        refused: info.rejected.map(addressOf),
      });
    }
    this.logger.log({ msg: 'mail sent', id: mail.id, to: info.accepted.map(addressOf), subject: mail.subject, messageId });
  }

  /** Closes pooled connections (`?pool=true` in the URL); nothing is open otherwise. */
  onApplicationShutdown(): void {
    this.transport.close();
  }
}

/** Every recipient answered 5xx to `RCPT TO`; a 4xx (mailbox busy, greylisting) may pass later. */
function refusedForGood(error: unknown): boolean {
  const { code, command, responseCode } = error as { code?: unknown; command?: unknown; responseCode?: unknown };
  return code === 'EENVELOPE' && command === 'RCPT TO' && typeof responseCode === 'number' && responseCode >= 500;
}

function addressOf(recipient: string | { address: string }): string {
  return typeof recipient === 'string' ? recipient : recipient.address;
}

/**
 * The sender's domain, the right side of every `Message-ID`, as nodemailer does for its own; ids are
 * unique by their left side, a digest of the mail's id (which may hold characters a header cannot).
 */
function domainOf(from: string): string {
  const [sender] = addressparser(from, { flatten: true });
  return sender?.address.split('@')[1] || 'localhost';
}
