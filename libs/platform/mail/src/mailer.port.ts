/** One plain-text mail. */
export interface Mail {
  /**
   * Names this mail across redeliveries of its request (the bus message id): the SMTP adapter makes
   * the `Message-ID` header from it, so a mail system that deduplicates shows a repeated send once.
   */
  readonly id: string;
  readonly to: readonly string[];
  readonly subject: string;
  readonly text: string;
}

/**
 * Sends mail. Adapters: `SmtpMailer` when an SMTP server is configured, `LogMailer` (a log line per
 * mail) otherwise. Rejecting means "not sent": the caller (the mail consumer) lets the bus deliver the
 * request again; a rejection with `permanent = true` says sending again cannot succeed.
 */
export abstract class Mailer {
  abstract send(mail: Mail): Promise<void>;
}
