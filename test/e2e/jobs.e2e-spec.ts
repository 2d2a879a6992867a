import { randomUUID } from 'node:crypto';
import { api, createAccount, expectJson, expectProblem, parseCsv, type JobDetail, type TestAccount } from './support';
import {
  completedJob,
  createSegment,
  expectAbsoluteUrl,
  expectAccepted,
  JOB_STARTED_AT,
  JOB_SUMMARY_FIELDS,
  segmentPath,
  type AsyncAcknowledgement,
} from './support-segments';

type JobSummary = Omit<JobDetail, 'events'>;

const JOB_STATUSES = ['IN_PROGRESS', 'COMPLETED', 'FAILED'];

function jobPath(jobId: string): string {
  return `/jobs/${encodeURIComponent(jobId)}`;
}

/** Starts an add_user_ids job and waits for it; returns its acknowledgement. */
async function finishedAddJob(account: TestAccount, segmentId: string, userIds: string[]): Promise<AsyncAcknowledgement> {
  const response = await api(account, 'POST', segmentPath(segmentId, 'add_user_ids'), { json: { user_ids: userIds } });
  const ack = await expectAccepted(account, response);
  await completedJob(account, ack);
  return ack;
}

describe('jobs', () => {
  let account: TestAccount;
  let other: TestAccount;
  /** Jobs of `account`, oldest first: add, export, remove. */
  const jobIds: string[] = [];
  let otherJobId: string;

  beforeAll(async () => {
    [account, other] = await Promise.all([createAccount(), createAccount()]);
    const segment = await createSegment(account);

    jobIds.push((await finishedAddJob(account, segment.id, ['job-user-1', 'job-user-2'])).job_id);
    const exported = await api(account, 'POST', segmentPath(segment.id, 'segment_membership_export'), { json: {} });
    const exportAck = await expectAccepted(account, exported);
    await completedJob(account, exportAck);
    jobIds.push(exportAck.job_id);
    const removed = await api(account, 'POST', segmentPath(segment.id, 'remove_user_ids'), { json: { user_ids: ['job-user-1'] } });
    const removeAck = await expectAccepted(account, removed);
    await completedJob(account, removeAck);
    jobIds.push(removeAck.job_id);

    const otherSegment = await createSegment(other);
    otherJobId = (await finishedAddJob(other, otherSegment.id, ['someone-else'])).job_id;
  });

  describe('GET /jobs', () => {
    it('lists the account jobs as summaries with exactly id, name, started_at, status, url', async () => {
      const jobs = await expectJson<JobSummary[]>(await api(account, 'GET', '/jobs'), 200);
      expect(Array.isArray(jobs)).toBe(true);
      expect(jobs.map((job) => job.id)).toEqual(expect.arrayContaining(jobIds));

      for (const job of jobs) {
        expect(Object.keys(job).sort()).toEqual(JOB_SUMMARY_FIELDS);
        expect(typeof job.name).toBe('string');
        expect(job.name.length).toBeGreaterThan(0);
        expect(job.started_at).toMatch(JOB_STARTED_AT);
        expect(JOB_STATUSES).toContain(job.status);
        expectAbsoluteUrl(job.url, `/v2/accounts/${encodeURIComponent(account.id)}/jobs/${encodeURIComponent(job.id)}`);
      }
      for (const id of jobIds) expect(jobs.find((job) => job.id === id)?.status).toBe('COMPLETED');
    });

    it('lists the newest job first', async () => {
      const jobs = await expectJson<JobSummary[]>(await api(account, 'GET', '/jobs'), 200);
      const positions = jobIds.map((id) => jobs.findIndex((job) => job.id === id));
      expect(positions).toEqual([...positions].sort((left, right) => right - left));

      // started_at has no zone suffix: it is UTC, so append Z to compare instants.
      const startTimes = jobs.map((job) => Date.parse(`${job.started_at}Z`));
      expect(startTimes).toEqual([...startTimes].sort((left, right) => right - left));
    });

    it("never lists another account's job", async () => {
      const mine = await expectJson<JobSummary[]>(await api(account, 'GET', '/jobs'), 200);
      expect(mine.map((job) => job.id)).not.toContain(otherJobId);

      const theirs = await expectJson<JobSummary[]>(await api(other, 'GET', '/jobs'), 200);
      expect(theirs.map((job) => job.id)).toContain(otherJobId);
      for (const id of jobIds) expect(theirs.map((job) => job.id)).not.toContain(id);
    });

    it('renders the list as CSV under Accept: text/csv', async () => {
      const response = await api(account, 'GET', '/jobs', { headers: { Accept: 'text/csv' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/csv\b/);
      const csv = parseCsv(await response.text());
      expect([...csv.header].sort()).toEqual(JOB_SUMMARY_FIELDS);
      expect(csv.rows.map((row) => row['id'])).toEqual(expect.arrayContaining(jobIds));
    });
  });

  describe('GET /jobs/{job_id}', () => {
    it('gives the summary fields plus events (name, timestamp, attributes)', async () => {
      const jobs = await expectJson<JobSummary[]>(await api(account, 'GET', '/jobs'), 200);
      for (const id of jobIds) {
        const detail = await expectJson<JobDetail>(await api(account, 'GET', jobPath(id)), 200);
        expect(Object.keys(detail).sort()).toEqual([...JOB_SUMMARY_FIELDS, 'events'].sort());
        const { events, ...summary } = detail;
        expect(summary).toEqual(jobs.find((job) => job.id === id));
        expect(summary.started_at).toMatch(JOB_STARTED_AT);

        expect(Array.isArray(events)).toBe(true);
        for (const event of events) {
          expect(Object.keys(event).sort()).toEqual(['attributes', 'name', 'timestamp']);
          expect(typeof event.name).toBe('string');
          expect(event.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d/);
          expect(Number.isNaN(Date.parse(event.timestamp))).toBe(false);
          expect(typeof event.attributes).toBe('object');
          expect(event.attributes).not.toBeNull();
          expect(Array.isArray(event.attributes)).toBe(false);
        }
        expect(events.map((event) => event.name)).toContain('Completed');
      }
    });

    it('reports the Completed counters of an add job', async () => {
      const detail = await expectJson<JobDetail>(await api(account, 'GET', jobPath(jobIds[0])), 200);
      const completed = detail.events.find((event) => event.name === 'Completed');
      expect(completed?.attributes).toMatchObject({
        ingestions_completed: 2,
        ingestions_failed: 0,
        requests_failed: 0,
        runtime_ms: expect.any(Number),
      });
    });

    it('renders the detail as CSV without an events column under Accept: text/csv', async () => {
      const json = await expectJson<JobDetail>(await api(account, 'GET', jobPath(jobIds[0])), 200);
      const response = await api(account, 'GET', jobPath(jobIds[0]), { headers: { Accept: 'text/csv' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/csv\b/);
      const csv = parseCsv(await response.text());
      expect([...csv.header].sort()).toEqual(JOB_SUMMARY_FIELDS);
      expect(csv.header).not.toContain('events');
      expect(csv.rows).toEqual([Object.fromEntries(JOB_SUMMARY_FIELDS.map((field) => [field, json[field as keyof JobSummary]]))]);
    });

    it.each([
      ['an unknown id', 'no-such-job'],
      ['a well-formed unknown id', randomUUID()],
    ])('answers 404 for %s', async (_label, unknownId) => {
      await expectProblem(await api(account, 'GET', jobPath(unknownId)), 404, unknownId);
    });

    it("answers 404 for another account's job", async () => {
      await expectProblem(await api(account, 'GET', jobPath(otherJobId)), 404);
      await expectProblem(await api(other, 'GET', jobPath(jobIds[0])), 404);
    });
  });

  it('lists a new job at once, before it finishes, with a status from the job status set', async () => {
    const segment = await createSegment(account);
    const response = await api(account, 'POST', segmentPath(segment.id, 'add_user_ids'), { json: { user_ids: ['listed-at-once'] } });
    const ack = await expectAccepted(account, response);
    const jobs = await expectJson<JobSummary[]>(await api(account, 'GET', '/jobs'), 200);
    expect(jobs[0]?.id).toBe(ack.job_id);
    expect(['IN_PROGRESS', 'COMPLETED']).toContain(jobs[0]?.status);
    await completedJob(account, ack);
  });
});
