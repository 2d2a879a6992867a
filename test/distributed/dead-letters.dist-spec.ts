import { setTimeout as delay } from 'node:timers/promises';
// A relative path, not the alias, as the other distributed specs reach the suite.
// eslint-disable-next-line @nx/enforce-module-boundaries
import type { DistributedSuite } from '../../tools/suite/src';
import { admin, api, createAccount, eventually, expectJson, expectProblem, type TestAccount } from '../e2e/support';
import { startMailServer, type TestMailServer } from '../e2e/support-mail';
import { completedJob, expectAccepted, useServer } from '../e2e/support-segments';
import { startSuite } from './support';

const MAIL_TOPIC = 'guidepost.mail.mail-requested.v1';
const RECIPIENT = 'ops@refusing.example';

interface DeadLetterSummary {
  readonly id: string;
  readonly source: string;
  readonly group: string | null;
  readonly status: string;
  readonly replayed_at: string | null;
}

/**
 * Dead letters of the distributed shape: the mail sender (a Kafka consumer group in the ingestion
 * service's process) gives up an export's notification mail that the mail server refuses for good; the
 * ingestion service keeps it in its schema and serves it through the gateway; replayed, the mail goes
 * out once, to that group. (That a replay reaches no other group is shown with several groups on one
 * topic by `dead-letters.int-spec.ts` in platform-database.)
 */
describe('dead letters of the distributed shape', () => {
  let mail: TestMailServer;
  let suite: DistributedSuite | undefined;
  let pointBack: (() => void) | undefined;
  let account: TestAccount;

  beforeAll(async () => {
    mail = await startMailServer();
    suite = await startSuite({ env: { GUIDEPOST_SMTP_URL: mail.url } });
    pointBack = useServer({ baseUrl: suite.gatewayUrl, adminToken: suite.adminToken });
    account = await createAccount();
  }, 240_000);

  afterAll(async () => {
    pointBack?.();
    await suite?.stop();
    await mail?.close();
  }, 120_000);

  it("keeps what a consumer group gives up in its service's schema, shows it through the gateway, and replays it to that group once", async () => {
    const response = await api(account, 'POST', '/export/events', {
      json: { format: 'csv', conditions: [], start_time: '2024-03-01T00:00:00Z', email: RECIPIENT },
    });
    await completedJob(account, await expectAccepted(account, response), 120_000);

    const [deadLetter] = await eventually(async () => {
      const page = await expectJson<{ dead_letters: DeadLetterSummary[] }>(await admin('GET', '/admin/v1/dead-letters/ingestion'), 200);
      expect(page.dead_letters).toHaveLength(1);
      return page.dead_letters;
    }, 60_000);
    expect(deadLetter).toMatchObject({
      service: 'ingestion',
      source: 'consumer',
      topic: MAIL_TOPIC,
      group: 'mail.sender',
      reason: expect.stringContaining(`the SMTP server refused every recipient (${RECIPIENT})`) as string,
      attempts: 1,
      status: 'waiting',
      partition: expect.any(Number) as number,
      offset: expect.stringMatching(/^\d+$/) as string,
    });
    const shown = await expectJson<Record<string, unknown>>(await admin('GET', `/admin/v1/dead-letters/ingestion/${deadLetter.id}`), 200);
    expect(shown).toMatchObject({
      payload: { to: [RECIPIENT] },
      replayable: true,
      headers: { 'message-id': expect.any(String) as string },
    });

    const ingestion = suite!.process('ingestion-0');
    const gauge = `guidepost_dead_letters_waiting{service="ingestion",topic="${MAIL_TOPIC}",group="mail.sender"}`;
    expect(await metricLine(ingestion.url, gauge)).toBe(`${gauge} 1`);
    // Each service serves its own through the gateway; the admin token is checked by the service itself.
    for (const service of ['gateway', 'content', 'segment', 'profile']) {
      expect(await expectJson(await admin('GET', `/admin/v1/dead-letters/${service}`), 200)).toEqual({
        dead_letters: [],
        next_cursor: null,
      });
    }
    await expectProblem(
      await fetch(`${suite!.gatewayUrl}/admin/v1/dead-letters/ingestion`, { headers: { Authorization: 'Bearer wrong' } }),
      401,
    );
    expect(mail.received).toEqual([]);

    mail.refusing = false;
    const replayed = await expectJson<DeadLetterSummary>(
      await admin('POST', `/admin/v1/dead-letters/ingestion/${deadLetter.id}/replay`),
      200,
    );
    expect(replayed).toMatchObject({ status: 'replayed', replayed_at: expect.any(String) as string });
    await eventually(() => expect(mail.received).toEqual([[RECIPIENT]]), 60_000);

    const again = await expectJson<DeadLetterSummary>(await admin('POST', `/admin/v1/dead-letters/ingestion/${deadLetter.id}/replay`), 200);
    expect(again.replayed_at).toBe(replayed.replayed_at);
    expect(await expectJson(await admin('POST', '/admin/v1/dead-letters/ingestion/replay', {}), 200)).toEqual({ replayed: 0, failed: [] });
    await delay(3_000);
    expect(mail.received).toEqual([[RECIPIENT]]);
    expect(await metricLine(ingestion.url, gauge)).toBe(`${gauge} 0`);
  });
});

async function metricLine(processUrl: string, prefix: string): Promise<string | undefined> {
  const text = await (await fetch(`${processUrl}/metrics`)).text();
  return text.split('\n').find((line) => line.startsWith(prefix));
}
