import { api, createAccount, expectJson, startServer, type JobDetail, type RunningServer, type TestAccount } from './support';
import {
  addUserIds,
  completedJob,
  createSegment,
  download,
  expectAccepted,
  exportMembership,
  memberIds,
  ndjsonObjects,
  segmentPath,
  useServer,
  type Segment,
} from './support-segments';

const MEMBERS = ['durable-1', 'durable-2', 'durable-3'];

/**
 * Everything acknowledged before a restart is still there after it: credentials, segments, jobs and
 * membership. This file runs its own server so that restarting it disturbs no other spec.
 */
describe('persistence across a restart', () => {
  let running: RunningServer | undefined;
  let pointBack: (() => void) | undefined;
  let account: TestAccount;
  let segment: Segment;
  let jobBefore: JobDetail;
  let linkBefore: string;

  beforeAll(async () => {
    running = await startServer();
    pointBack = useServer(running);

    account = await createAccount();
    segment = await createSegment(account, { name: 'Survives restarts', description: 'kept on disk' });
    const response = await api(account, 'POST', segmentPath(segment.id, 'add_user_ids'), { json: { user_ids: MEMBERS } });
    jobBefore = (await completedJob(account, await expectAccepted(account, response))).job;
    linkBefore = (await exportMembership(account, segment.id)).link;

    await running.restart();
  }, 300_000);

  afterAll(async () => {
    pointBack?.();
    await running?.stop();
  }, 60_000);

  it('accepts the same credentials', async () => {
    const response = await api(account, 'GET', '/segments');
    expect(response.status).toBe(200);
  });

  it('still has the segment', async () => {
    expect(await expectJson(await api(account, 'GET', segmentPath(segment.id)), 200)).toEqual(segment);
    const listed = await expectJson<Segment[]>(await api(account, 'GET', '/segments'), 200);
    expect(listed).toContainEqual(segment);
  });

  it('still has the job, finished, with its events', async () => {
    expect(await expectJson(await api(account, 'GET', `/jobs/${encodeURIComponent(jobBefore.id)}`), 200)).toEqual(jobBefore);
    const jobs = await expectJson<JobDetail[]>(await api(account, 'GET', '/jobs'), 200);
    expect(jobs.map((job) => job.id)).toContain(jobBefore.id);
  });

  it('still has the membership', async () => {
    expect(await memberIds(account, segment.id)).toEqual(MEMBERS);
  });

  it('still serves an export link made before the restart', async () => {
    const lines = ndjsonObjects(await download(linkBefore));
    expect(lines.map((line) => (line as { user_id: string }).user_id).sort()).toEqual(MEMBERS);
  });

  it('keeps working: new ids join the old members', async () => {
    await addUserIds(account, segment.id, ['durable-4']);
    expect(await memberIds(account, segment.id)).toEqual([...MEMBERS, 'durable-4']);
  });
});
