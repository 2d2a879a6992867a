import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server on a free loopback port, for a Guidepost server to send its notification mail to. */
export interface TestMailServer {
  /** `GUIDEPOST_SMTP_URL` for the Guidepost server. */
  readonly url: string;
  /** While true, every recipient is refused for good (550), as a mail server refuses an unknown mailbox. */
  refusing: boolean;
  /** The recipients of every mail accepted, one list per mail. */
  readonly received: string[][];
  close(): Promise<void>;
}

export async function startMailServer(): Promise<TestMailServer> {
  const received: string[][] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onRcptTo: (address, _session, callback) =>
      callback(mail.refusing ? Object.assign(new Error(`no mailbox ${address.address}`), { responseCode: 550 }) : null),
    onData: (stream, session, callback) => {
      stream.resume();
      stream.on('end', () => {
        received.push(session.envelope.rcptTo.map((recipient) => recipient.address));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const mail: TestMailServer = {
    url: `smtp://127.0.0.1:${port}`,
    refusing: true,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return mail;
}
