import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  api,
  createAccount,
  eventually,
  expectJson,
  startServer,
  waitForJob,
  type ApiInit,
  type RunningServer,
  type TestAccount,
} from './support';
import { completedJob, download, expectAccepted, ndjsonObjects, useServer } from './support-segments';
import {
  csvBody,
  eventuallyProperties,
  historyOfAtLeast,
  ndjsonBody,
  ndjsonText,
  startImport,
  track,
  uniqueId,
  type ImportKind,
} from './support-people';

/**
 * Imports and tracked events survive a restart: an import interrupted by one finishes afterwards with
 * every row exactly once, and tracked events acknowledged before it are kept.
 *
 * An upload that cannot be read as its format at all (a CSV header without the id column, bytes that
 * are not UTF-8) is accepted, since uploads are staged before they are read, and then fails its job
 * with the reason. Nothing a client sends may take the server down, neither at once nor when the
 * staged upload is taken up again after a restart. This file runs its own server, so that a failure
 * here cannot take the other specs' server with it.
 */

describe('malformed import files', () => {
  let running: RunningServer | undefined;
  let pointBack: (() => void) | undefined;
  let account: TestAccount;
  const failedJobIds: string[] = [];

  beforeAll(async () => {
    running = await startServer();
    pointBack = useServer(running);
    account = await createAccount();
  }, 180_000);

  afterAll(async () => {
    pointBack?.();
    await running?.stop();
  }, 60_000);

  /**
   * The server answers, ready, and a good import still goes through. Ready within a while: on a loaded
   * machine a dependency may miss the readiness probe's two seconds now and then.
   */
  async function expectStillServing(): Promise<void> {
    await eventually(async () => expect((await fetch(`${running?.baseUrl}/health/ready`)).status).toBe(200), 30_000, 500);
    const userId = uniqueId('after');
    await completedJob(account, await startImport(account, 'profiles', ndjsonBody(ndjsonText([{ user_id: userId, plan: 'pro' }]))));
    await eventuallyProperties(account, { user: userId }, { plan: 'pro' });
  }

  it('finishes an import interrupted by a restart, with every row exactly once', async () => {
    const rowCount = 60_000;
    const rows = Array.from({ length: rowCount }, (_, index) => ({
      user_id: `bulk-${index % 500}`,
      name: 'bulk_event',
      timestamp: new Date(Date.UTC(2024, 0, 1) + index * 1000).toISOString(),
      attributes: { index },
    }));
    const ack = await startImport(account, 'events', ndjsonBody(ndjsonText(rows)));
    await running?.restart();

    const job = await waitForJob(account, ack.job_url, 120_000);
    const completed = job.events.find((event) => event.name === 'Completed');
    expect({ status: job.status, completed: completed?.attributes }).toMatchObject({
      status: 'COMPLETED',
      completed: { ingestions_completed: rowCount, ingestions_failed: 0, requests_failed: 0 },
    });
    // Every row reaches the event store once: an export of the account counts them.
    const exported = await eventually(
      async () => {
        const lines = await exportAll();
        expect(lines).toHaveLength(rowCount);
        return lines;
      },
      60_000,
      1_000,
    );
    expect(new Set(exported.map((line) => (line as { attributes: { index: number } }).attributes.index)).size).toBe(rowCount);
  }, 240_000);

  it('keeps tracked events acknowledged before a restart', async () => {
    const userId = uniqueId('tracked');
    await track(account, userId, { name: 'before_restart', timestamp: '2025-01-01T00:00:00Z' });
    await running?.restart();
    const [event] = await historyOfAtLeast(account, userId, 1);
    expect(event).toMatchObject({ user_id: userId, name: 'before_restart' });
  }, 180_000);

  /** Every `bulk_event` of the account, through a JSON export. */
  async function exportAll(): Promise<unknown[]> {
    const body = { format: 'json', conditions: [['name', '==', 'bulk_event']], start_time: 0 };
    const ack = await expectAccepted(account, await api(account, 'POST', '/export/events', { json: body }));
    const { completed } = await completedJob(account, ack, 60_000);
    return ndjsonObjects(await download(completed.attributes['signed_s3_url'] as string));
  }

  it.each<[string, ImportKind, ApiInit, RegExp]>([
    ['a profiles CSV without a user_id column', 'profiles', csvBody('plan,seats\npro,1\n'), /user_?id/i],
    ['a groups CSV without a group_id column', 'groups', csvBody('industry,size\nretail,5\n'), /group_?id/i],
    ['an events CSV without a name column', 'events', csvBody('user_id,timestamp\nu-1,2024-05-01T10:00:00Z\n'), /name/],
    [
      'a profiles CSV naming a column twice',
      'profiles',
      csvBody('user_id,plan,plan\nu-1,pro,free\n'),
      /line 1: column 'plan' appears twice/,
    ],
    [
      'an NDJSON file that is not UTF-8',
      'profiles',
      {
        body: Buffer.from([0x7b, 0x22, 0x75, 0x73, 0x65, 0x72, 0x5f, 0x69, 0x64, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]),
        headers: { 'Content-Type': 'application/ndjson' },
      },
      /utf-?8/i,
    ],
  ])(
    'fails the job for %s, saying why, and keeps serving',
    async (_label, kind, init, reason) => {
      const ack = await startImport(account, kind, init);
      const job = await waitForJob(account, ack.job_url);
      expect(job.status).toBe('FAILED');
      const failed = job.events.find((event) => event.name === 'Failed');
      expect(failed?.attributes['reason']).toMatch(reason);
      failedJobIds.push(job.id);
      await expectStillServing();
    },
    90_000,
  );

  it('keeps no staged upload once its job has ended, completed or failed', async () => {
    // Every import of this file has ended by now (the folder holds their accounts); the worker deletes
    // an upload right after its job's outcome.
    const staged = join(running?.dataDir ?? '', 'blobs', 'objects', 'imports');
    const left = await eventually(
      async () => {
        const files = await readdir(staged, { recursive: true, withFileTypes: true });
        const uploads = files.filter((entry) => entry.isFile()).map((entry) => entry.name);
        expect(uploads).toEqual([]);
        return uploads;
      },
      10_000,
      250,
    );
    expect(left).toEqual([]);
  });

  it('starts again after a restart, with the failed jobs still FAILED', async () => {
    await running?.restart();
    for (const jobId of failedJobIds) {
      const job = await expectJson<{ status: string }>(await api(account, 'GET', `/jobs/${jobId}`), 200);
      expect(job.status).toBe('FAILED');
    }
    await expectStillServing();
  }, 180_000);
});
