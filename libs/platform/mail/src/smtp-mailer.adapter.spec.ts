import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { MailRequested } from '@guidepost/contracts-events';
import { InProcessBusModule, MessageBus } from '@guidepost/platform-bus';
import { loadConfig } from '@guidepost/platform-config';
import { LogMailer } from './log-mailer.adapter';
import { MailModule } from './mail.module';
import { Mailer } from './mailer.port';
import { MailRefusedError, SmtpMailer } from './smtp-mailer.adapter';

interface Received {
  readonly envelopeFrom: string;
  readonly envelopeTo: string[];
  readonly headers: Map<string, string>;
  readonly text: string;
}

const FROM = 'Guidepost <no-reply@guidepost.test>';
/** As an export mail carries it: a long presigned link, which the transfer encoding wraps and escapes. */
const LINK = `http://127.0.0.1:9000/guidepost/exports/acme/job-1.csv?X-Amz-Signature=${'0a'.repeat(32)}&X-Amz-Expires=604800`;
const MAIL = {
  id: 'job-1:mail',
  to: ['ada@example.com'],
  subject: 'Your export is ready',
  text: `The segment export (3 rows) is ready:\n\n${LINK}\n\nThe link expires at 2026-11-28T16:00:00.000Z.`,
};

/** A real SMTP server on a free loopback port that keeps what it receives; `refuse` answers RCPT TO. */
async function startServer(refuse: (address: SMTPServerAddress) => Error | undefined = () => undefined) {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onRcptTo: (address, _session, callback) => callback(refuse(address) ?? null),
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push(parse(Buffer.concat(chunks).toString('utf8'), session.envelope));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function parse(raw: string, envelope: { mailFrom: SMTPServerAddress | false; rcptTo: SMTPServerAddress[] }): Received {
  const [head, ...body] = raw.split('\r\n\r\n');
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const content = body.join('\r\n\r\n');
  const text = headers.get('content-transfer-encoding') === 'quoted-printable' ? decodeQuotedPrintable(content) : content;
  return {
    envelopeFrom: envelope.mailFrom ? envelope.mailFrom.address : '',
    envelopeTo: envelope.rcptTo.map((rcpt) => rcpt.address),
    headers,
    text: text.replace(/\r\n/g, '\n').replace(/\n$/, ''),
  };
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

const refusal = (responseCode: number, message: string) => Object.assign(new Error(message), { responseCode });

describe('SmtpMailer', () => {
  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it('delivers the mail to its recipients, from the configured sender, with its subject and text', async () => {
    const server = await startServer();
    try {
      await new SmtpMailer(server.url, FROM).send(MAIL);
      expect(server.received).toHaveLength(1);
      const [mail] = server.received;
      expect(mail.envelopeFrom).toBe('no-reply@guidepost.test');
      expect(mail.envelopeTo).toEqual(['ada@example.com']);
      expect(mail.headers.get('from')).toBe(FROM);
      expect(mail.headers.get('to')).toBe('ada@example.com');
      expect(mail.headers.get('subject')).toBe('Your export is ready');
      expect(mail.text).toBe(MAIL.text);
    } finally {
      await server.close();
    }
  });

  it('gives a mail sent again the same Message-ID, and another mail another one', async () => {
    const server = await startServer();
    try {
      const mailer = new SmtpMailer(server.url, FROM);
      await mailer.send(MAIL);
      await mailer.send(MAIL);
      await mailer.send({ ...MAIL, id: 'job-2:mail' });
      const [first, again, other] = server.received.map((mail) => mail.headers.get('message-id'));
      expect(first).toMatch(/^<[0-9a-f]{64}@guidepost\.test>$/);
      expect(again).toBe(first);
      expect(other).not.toBe(first);
    } finally {
      await server.close();
    }
  });

  it('fails for good when the server refuses every recipient permanently', async () => {
    const server = await startServer(() => refusal(550, 'No such user'));
    try {
      const sending = new SmtpMailer(server.url, FROM).send(MAIL);
      await expect(sending).rejects.toThrow(MailRefusedError);
      await expect(sending).rejects.toMatchObject({ permanent: true, message: expect.stringContaining('No such user') as unknown });
      expect(server.received).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('fails, to be tried again, when the server refuses for now', async () => {
    const server = await startServer(() => refusal(450, 'Mailbox busy, try again later'));
    try {
      const sending = new SmtpMailer(server.url, FROM).send(MAIL);
      await expect(sending).rejects.toThrow('Mailbox busy');
      await expect(sending).rejects.not.toHaveProperty('permanent');
    } finally {
      await server.close();
    }
  });

  it('fails, to be tried again, when the server cannot be reached', async () => {
    const server = await startServer();
    await server.close();
    const sending = new SmtpMailer(server.url, FROM).send(MAIL);
    await expect(sending).rejects.toThrow('ECONNREFUSED');
    await expect(sending).rejects.not.toHaveProperty('permanent');
  });

  it('delivers to the recipients the server accepts and reports the ones it refused', async () => {
    const server = await startServer((address) => (address.address === 'gone@example.com' ? refusal(550, 'No such user') : undefined));
    try {
      await new SmtpMailer(server.url, FROM).send({ ...MAIL, to: ['gone@example.com', 'ada@example.com'] });
      expect(server.received.map((mail) => mail.envelopeTo)).toEqual([['ada@example.com']]);
      expect(Logger.prototype.warn).toHaveBeenCalledWith(expect.objectContaining({ refused: ['gone@example.com'] }));
    } finally {
      await server.close();
    }
  });
});

describe('MailModule', () => {
  beforeEach(() => jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  async function startModule(env: Record<string, string>) {
    const config = loadConfig({ GUIDEPOST_MAIL_FROM: FROM, ...env });
    const moduleRef = await Test.createTestingModule({ imports: [InProcessBusModule, MailModule.forRoot(config)] }).compile();
    await moduleRef.init();
    return moduleRef;
  }

  it('sends every mail request on the bus through the configured SMTP server', async () => {
    const server = await startServer();
    const moduleRef = await startModule({ GUIDEPOST_SMTP_URL: server.url });
    try {
      expect(moduleRef.get(Mailer)).toBeInstanceOf(SmtpMailer);
      const { id, ...payload } = MAIL;
      await moduleRef
        .get(MessageBus)
        .publish([{ id, topic: MailRequested.name, key: 'job-1', payload, occurredAt: new Date().toISOString() }]);
      expect(server.received.map((mail) => [mail.envelopeTo, mail.headers.get('subject')])).toEqual([
        [['ada@example.com'], 'Your export is ready'],
      ]);
    } finally {
      await moduleRef.close();
      await server.close();
    }
  });

  it('writes mail to the log when no SMTP server is configured', async () => {
    const moduleRef = await startModule({});
    try {
      expect(moduleRef.get(Mailer)).toBeInstanceOf(LogMailer);
    } finally {
      await moduleRef.close();
    }
  });
});
