import { setTimeout as delay } from 'node:timers/promises';
import {
  admin,
  api,
  createAccount,
  eventually,
  expectJson,
  expectProblem,
  startServer,
  type RunningServer,
  type TestAccount,
} from './support';
import { startMailServer, type TestMailServer } from './support-mail';
import { completedJob, expectAccepted, useServer } from './support-segments';

const MAIL_TOPIC = 'guidepost.mail.mail-requested.v1';
const RECIPIENT = 'ops@refusing.example';

interface DeadLetterSummary {
  readonly id: string;
  readonly service: string;
  readonly source: string;
  readonly topic: string;
  readonly group: string | null;
  readonly message_id: string | null;
  readonly reason: string;
  readonly attempts: number;
  readonly failed_at: string;
  readonly status: 'waiting' | 'replayed';
  readonly replayed_at: string | null;
}

interface DeadLetterPage {
  readonly dead_letters: DeadLetterSummary[];
  readonly next_cursor: string | null;
}

async function waitingMailMetric(baseUrl: string): Promise<string | undefined> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  return text.split('\n').find((line) => line.startsWith(`guidepost_dead_letters_waiting{service="ingestion",topic="${MAIL_TOPIC}"`));
}

/**
 * A message given up on can be seen and replayed over the admin API. The legitimate dead letter here:
 * an export's notification mail that the mail server refuses for good (550 to every recipient). This
 * file runs its own standalone server, since it needs one that sends mail through the test's SMTP server.
 */
describe('dead letters', () => {
  let mail: TestMailServer;
  let running: RunningServer | undefined;
  let pointBack: (() => void) | undefined;
  let account: TestAccount;
  let deadLetter: DeadLetterSummary;

  beforeAll(async () => {
    mail = await startMailServer();
    running = await startServer({ env: { GUIDEPOST_SMTP_URL: mail.url, GUIDEPOST_LOG_LEVEL: 'error' } });
    pointBack = useServer(running);
    account = await createAccount();

    const response = await api(account, 'POST', '/export/events', {
      json: { format: 'json', conditions: [], start_time: '2024-03-01T00:00:00Z', email: RECIPIENT },
    });
    await completedJob(account, await expectAccepted(account, response));
  }, 300_000);

  afterAll(async () => {
    pointBack?.();
    await running?.stop();
    await mail?.close();
  }, 60_000);

  it('lists the refused mail as a dead letter of the ingestion service, with the reason', async () => {
    const page = await eventually(async () => {
      const listed = await expectJson<DeadLetterPage>(await admin('GET', `/admin/v1/dead-letters/ingestion?topic=${MAIL_TOPIC}`), 200);
      expect(listed.dead_letters).toHaveLength(1);
      return listed;
    }, 30_000);
    expect(page.next_cursor).toBeNull();
    deadLetter = page.dead_letters[0];
    expect(deadLetter).toMatchObject({
      service: 'ingestion',
      source: 'relay',
      topic: MAIL_TOPIC,
      group: null,
      reason: expect.stringContaining(`the SMTP server refused every recipient (${RECIPIENT})`) as string,
      attempts: 1,
      status: 'waiting',
      replayed_at: null,
    });
    expect(deadLetter.reason).toContain('mail.sender gave up on message');
    expect(Date.parse(deadLetter.failed_at)).toBeGreaterThan(Date.now() - 300_000);
    expect(mail.received).toEqual([]);
  });

  it('shows it with its payload', async () => {
    const shown = await expectJson<Record<string, unknown>>(await admin('GET', `/admin/v1/dead-letters/ingestion/${deadLetter.id}`), 200);
    expect(shown).toMatchObject({ ...deadLetter, replayable: true, payload: { to: [RECIPIENT], subject: expect.any(String) as string } });
    expect(String((shown['payload'] as { text: string }).text)).toContain('http');
  });

  it('counts it as waiting in the metrics', async () => {
    expect(await waitingMailMetric(running!.baseUrl)).toBe(
      `guidepost_dead_letters_waiting{service="ingestion",topic="${MAIL_TOPIC}",group=""} 1`,
    );
  });

  it("serves every service's dead letters, filters and pages them, behind the admin token, with Problem answers", async () => {
    for (const service of ['gateway', 'content', 'segment', 'profile']) {
      expect(await expectJson(await admin('GET', `/admin/v1/dead-letters/${service}`), 200)).toEqual({
        dead_letters: [],
        next_cursor: null,
      });
    }
    const none = await expectJson<DeadLetterPage>(
      await admin('GET', '/admin/v1/dead-letters/ingestion?group=ingestion.import-worker'),
      200,
    );
    expect(none.dead_letters).toEqual([]);
    const first = await expectJson<DeadLetterPage>(await admin('GET', '/admin/v1/dead-letters/ingestion?limit=1&status=waiting'), 200);
    expect(first.dead_letters.map((letter) => letter.id)).toEqual([deadLetter.id]);

    const { baseUrl } = running!;
    await expectProblem(await fetch(`${baseUrl}/admin/v1/dead-letters/ingestion`), 401);
    await expectProblem(
      await fetch(`${baseUrl}/admin/v1/dead-letters/ingestion/${deadLetter.id}/replay`, {
        method: 'POST',
        headers: { Authorization: 'Bearer wrong' },
      }),
      401,
    );
    await expectProblem(await admin('GET', '/admin/v1/dead-letters/ingestion/999999999'), 404, "Dead letter '999999999' was not found");
    await expectProblem(await admin('GET', '/admin/v1/dead-letters/ingestion?limit=0'), 400, /^limit: /);
    await expectProblem(await admin('GET', '/admin/v1/dead-letters/ingestion?cursor=nonsense'), 400, /^cursor: /);
    await expectProblem(await admin('POST', '/admin/v1/dead-letters/ingestion/replay', { topic: 7 }), 400, /^topic: /);
    await expectProblem(await admin('GET', '/admin/v1/dead-letters/billing'), 404);
    expect(mail.received).toEqual([]);
  });

  it('replays it once the mail server accepts: the mail goes out once, and replaying again changes nothing', async () => {
    mail.refusing = false;
    const replayed = await expectJson<DeadLetterSummary>(
      await admin('POST', `/admin/v1/dead-letters/ingestion/${deadLetter.id}/replay`),
      200,
    );
    expect(replayed).toMatchObject({ id: deadLetter.id, status: 'replayed', replayed_at: expect.any(String) as string });
    await eventually(() => expect(mail.received).toEqual([[RECIPIENT]]), 30_000);

    const again = await expectJson<DeadLetterSummary>(await admin('POST', `/admin/v1/dead-letters/ingestion/${deadLetter.id}/replay`), 200);
    expect(again.replayed_at).toBe(replayed.replayed_at);
    expect(await expectJson(await admin('POST', '/admin/v1/dead-letters/ingestion/replay', { topic: MAIL_TOPIC }), 200)).toEqual({
      replayed: 0,
      failed: [],
    });
    await delay(1_000);
    expect(mail.received).toEqual([[RECIPIENT]]);

    const listed = await expectJson<DeadLetterPage>(await admin('GET', '/admin/v1/dead-letters/ingestion'), 200);
    expect(listed.dead_letters).toEqual([{ ...deadLetter, status: 'replayed', replayed_at: replayed.replayed_at }]);
    expect(await expectJson(await admin('GET', '/admin/v1/dead-letters/ingestion?status=waiting'), 200)).toEqual({
      dead_letters: [],
      next_cursor: null,
    });
    expect(await waitingMailMetric(running!.baseUrl)).toBe(
      `guidepost_dead_letters_waiting{service="ingestion",topic="${MAIL_TOPIC}",group=""} 0`,
    );
  });
});
