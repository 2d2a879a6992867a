import { type CreatedJob, JobRegistryClient, JobsOfOneRequest } from './job-registry.port';

class RecordingRegistry extends JobRegistryClient {
  readonly abandoned: { accountId: string; jobId: string; reason: string }[] = [];
  unreachable = false;
  private created = 0;

  createJob(): Promise<CreatedJob> {
    this.created += 1;
    return Promise.resolve({ id: `job-${this.created}`, startedAt: '2026-01-01T00:00:00.000Z' });
  }

  abandonJob(input: { accountId: string; jobId: string; reason: string }): Promise<void> {
    if (this.unreachable) return Promise.reject(new Error('connect ECONNREFUSED'));
    this.abandoned.push(input);
    return Promise.resolve();
  }
}

describe('JobsOfOneRequest', () => {
  it('leaves the jobs of work that succeeded alone', async () => {
    const registry = new RecordingRegistry();
    const job = await JobsOfOneRequest.around(registry, (jobs) => jobs.createJob({ accountId: 'acme', name: 'Delete Profile' }));
    expect(job.id).toBe('job-1');
    expect(registry.abandoned).toEqual([]);
  });

  it('abandons every job of work that failed after creating them, with the reason, and throws the failure on', async () => {
    const registry = new RecordingRegistry();
    const failure = new Error('terminating connection due to administrator command');
    const outcome = await JobsOfOneRequest.around(registry, async (jobs) => {
      await jobs.createJob({ accountId: 'acme', name: 'Add Segment Users' });
      throw failure;
    }).catch((error: unknown) => error);
    expect(outcome).toBe(failure);
    expect(registry.abandoned).toEqual([
      {
        accountId: 'acme',
        jobId: 'job-1',
        reason: 'The request failed before its work was recorded: terminating connection due to administrator command',
      },
    ]);
  });

  it('throws the work s own failure even when the registry cannot be reached to abandon the job', async () => {
    const registry = new RecordingRegistry();
    registry.unreachable = true;
    const failure = new Error('commit failed');
    const outcome = await JobsOfOneRequest.around(registry, async (jobs) => {
      await jobs.createJob({ accountId: 'acme', name: 'Export Segment Membership' });
      throw failure;
    }).catch((error: unknown) => error);
    expect(outcome).toBe(failure);
  });
});
