/** One plain-text mail. */
export interface Mail {
  readonly to: readonly string[];
  readonly subject: string;
  readonly text: string;
}

/**
 * Sends mail. Adapters: `LogMailer` (a log line per mail) until an SMTP adapter is configured.
 * Rejecting means "not sent": the caller (the mail consumer) lets the bus deliver the request again.
 */
export abstract class Mailer {
  abstract send(mail: Mail): Promise<void>;
}
