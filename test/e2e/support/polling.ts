import { api, expectJson, type TestAccount } from './client';
import { delay } from './server-process';

/**
 * Calls `probe` until it resolves (does not throw) and returns its value; on timeout throws the last
 * failure. Tests wait for eventual outcomes with this, never with sleeps.
 */
export async function eventually<T>(probe: () => T | Promise<T>, timeoutMs = 10_000, intervalMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await probe();
    } catch (error) {
      if (Date.now() + intervalMs > deadline) throw error;
      await delay(intervalMs);
    }
  }
}

export interface JobEvent {
  readonly name: string;
  readonly timestamp: string;
  readonly attributes: Record<string, unknown>;
}

export interface JobDetail {
  readonly id: string;
  readonly name: string;
  readonly started_at: string;
  readonly status: 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';
  readonly url: string;
  readonly events: JobEvent[];
}

/** Polls the job (its `job_url` or id) until it is no longer `IN_PROGRESS`; returns the job detail. */
export async function waitForJob(account: TestAccount, jobUrlOrId: string, timeoutMs = 30_000): Promise<JobDetail> {
  const jobId = jobUrlOrId.includes('/') ? decodeURIComponent(jobUrlOrId.replace(/\/+$/, '').split('/').pop() ?? '') : jobUrlOrId;
  return eventually(
    async () => {
      const job = await expectJson<JobDetail>(await api(account, 'GET', `/jobs/${encodeURIComponent(jobId)}`), 200);
      if (job.status === 'IN_PROGRESS') throw new Error(`job ${jobId} still IN_PROGRESS: ${JSON.stringify(job.events)}`);
      return job;
    },
    timeoutMs,
    250,
  );
}
