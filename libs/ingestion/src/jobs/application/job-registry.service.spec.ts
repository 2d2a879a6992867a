import { JobName } from '@guidepost/contracts-http';
import { loadConfig } from '@guidepost/platform-config';
import type { Transaction, UnitOfWork } from '@guidepost/platform-database';
import { DomainError } from '@guidepost/platform-errors';
import { MetricsRegistry } from '@guidepost/platform-observability';
import type { JobEntity } from '../data-access/job.entity';
import type { JobRepository } from '../data-access/job.repository';
import { JobMetrics } from './job-metrics';
import { JobRegistry } from './job-registry.service';

/** Job storage holding `running` bulk jobs in progress; records what was inserted and in which transaction. */
function jobsWith(running: number): { repository: JobRepository; inserted: JobEntity[]; asked: unknown[] } {
  const inserted: JobEntity[] = [];
  const asked: unknown[] = [];
  const repository = {
    countInProgress: (_account: string, names: readonly string[], manager?: unknown) => {
      asked.push({ names, manager });
      return Promise.resolve(running);
    },
    insert: (job: JobEntity) => Promise.resolve(void inserted.push(job)),
  } as unknown as JobRepository;
  return { repository, inserted, asked };
}

const config = loadConfig({ GUIDEPOST_BULK_JOBS_PER_ACCOUNT: '3' });
const tx = { manager: { marker: 'the transaction' } } as unknown as Transaction;
/** Creating a job takes the caller's transaction; only abandoning one runs a unit of work of its own. */
const UNUSED_UNIT_OF_WORK = {} as UnitOfWork;

describe('JobRegistry: imports and exports per account', () => {
  it('creates a bulk job while the account runs fewer than its limit, counting under the creating transaction', async () => {
    const { repository, inserted, asked } = jobsWith(2);
    const job = await new JobRegistry(repository, config, UNUSED_UNIT_OF_WORK, new JobMetrics(new MetricsRegistry(), repository)).createJob(
      { accountId: 'acme', name: JobName.ImportEvents },
      tx,
    );
    expect(inserted.map((entity) => entity.id)).toEqual([job.id]);
    expect(asked).toEqual([{ names: expect.arrayContaining([JobName.ImportEvents, JobName.ExportEvents]), manager: tx.manager }]);
  });

  it('refuses one more with a 429 that says the limit and when to retry, creating nothing', async () => {
    const { repository, inserted } = jobsWith(3);
    const refused = await new JobRegistry(repository, config, UNUSED_UNIT_OF_WORK, new JobMetrics(new MetricsRegistry(), repository))
      .createJob({ accountId: 'acme', name: JobName.ExportEvents }, tx)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'throttled', retryAfterSeconds: 10 });
    expect((refused as DomainError).detail).toContain('At most 3 imports and exports');
    expect(inserted).toEqual([]);
  });

  it('does not limit the other jobs (deletions, segment changes)', async () => {
    const { repository, inserted, asked } = jobsWith(100);
    await new JobRegistry(repository, config, UNUSED_UNIT_OF_WORK, new JobMetrics(new MetricsRegistry(), repository)).createJob({
      accountId: 'acme',
      name: JobName.DeleteProfile,
    });
    expect(inserted).toHaveLength(1);
    expect(asked).toEqual([]);
  });
});

describe('JobRegistry.abandonJob', () => {
  it('ends a job in progress Failed with the reason, under one message id per job', async () => {
    const appended: unknown[] = [];
    const statuses: unknown[] = [];
    const repository = {
      lockForUpdate: () => Promise.resolve({ id: 'job-1', accountId: 'acme', name: JobName.ImportEvents, status: 'IN_PROGRESS' }),
      append: (_manager: unknown, event: unknown) => Promise.resolve(appended.push(event) > 0),
      updateStatus: (_manager: unknown, jobId: string, status: string) => Promise.resolve(void statuses.push([jobId, status])),
    } as unknown as JobRepository;
    const unitOfWork = { run: <R>(work: (tx: Transaction) => Promise<R>) => work(tx) } as unknown as UnitOfWork;

    const metrics = new MetricsRegistry();
    await new JobRegistry(repository, config, unitOfWork, new JobMetrics(metrics, repository)).abandonJob({
      accountId: 'acme',
      jobId: 'job-1',
      reason: 'the commit failed',
    });

    expect(appended).toEqual([
      expect.objectContaining({
        jobId: 'job-1',
        messageId: 'job-1:abandoned',
        name: 'Failed',
        attributes: { reason: 'the commit failed' },
      }),
    ]);
    expect(statuses).toEqual([['job-1', 'FAILED']]);
    expect(await metrics.getSingleMetricAsString('guidepost_jobs_finished_total')).toContain(
      'guidepost_jobs_finished_total{job="Import Events",status="FAILED"} 1',
    );
  });
});

describe('JobMetrics', () => {
  it('reports at every scrape the jobs in progress and the age of the oldest for every job name, 0 for the names none runs of', async () => {
    let running = [{ name: JobName.ImportEvents, count: 2, oldestAgeSeconds: 90 }];
    const metrics = new MetricsRegistry();
    new JobMetrics(metrics, { inProgressByName: () => Promise.resolve(running) } as unknown as JobRepository);
    const lines = async (name: string): Promise<string[]> =>
      (await metrics.getSingleMetricAsString(name)).split('\n').filter((line) => line.startsWith(name));
    expect(await lines('guidepost_jobs_in_progress')).toEqual(
      expect.arrayContaining([
        'guidepost_jobs_in_progress{service="ingestion",job="Import Events"} 2',
        'guidepost_jobs_in_progress{service="ingestion",job="Export Events"} 0',
      ]),
    );
    expect(await lines('guidepost_jobs_in_progress')).toHaveLength(Object.values(JobName).length);
    expect(await lines('guidepost_jobs_oldest_in_progress_age_seconds')).toContain(
      'guidepost_jobs_oldest_in_progress_age_seconds{service="ingestion",job="Import Events"} 90',
    );
    running = [];
    expect(await lines('guidepost_jobs_in_progress')).toContain('guidepost_jobs_in_progress{service="ingestion",job="Import Events"} 0');
  });
});
