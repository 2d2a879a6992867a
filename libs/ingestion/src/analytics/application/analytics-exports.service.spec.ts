import { ANALYTICS_DOWNLOAD_LINK_SECONDS, type JobStatus, JobName } from '@guidepost/contracts-http';
import type { BlobStore } from '@guidepost/platform-blob';
import type { AppConfig } from '@guidepost/platform-config';
import type { UnitOfWork } from '@guidepost/platform-database';
import { DomainError } from '@guidepost/platform-errors';
import type { JobRegistry } from '../../jobs/application/job-registry.service';
import { AnalyticsExports } from './analytics-exports.service';
import type { AnalyticsStore } from './analytics-store.port';

const STARTED_AT = new Date('2026-11-27T10:00:00.000Z');
const BASE_URL = 'https://api.example.test:8443';

interface RecordedEvent {
  readonly name: string;
  readonly attributes: Record<string, unknown>;
}

/** The exports service over a job in `status` whose events are `events`; links signed for as long as asked. */
function exportsOf(status: JobStatus, events: readonly RecordedEvent[], name: string = JobName.ExportAnalytics) {
  const signed: { key: string; ttlSeconds: number }[] = [];
  const jobs = {
    jobWithEvents: (accountId: string, jobId: string) =>
      Promise.resolve({ job: { id: jobId, accountId, name, startedAt: STARTED_AT, status }, events }),
  } as unknown as JobRegistry;
  const blobs = {
    signedUrl: (key: string, ttlSeconds: number, baseUrl: string) => {
      signed.push({ key, ttlSeconds });
      return Promise.resolve({ url: `${baseUrl}/blobs/${key}?n=${signed.length}`, expiresAt: '2026-11-27T11:00:00.000Z' });
    },
  } as unknown as BlobStore;
  const service = new AnalyticsExports({} as AnalyticsStore, blobs, jobs, {} as UnitOfWork, {} as AppConfig);
  return { service, signed };
}

describe('AnalyticsExports.status: the lifecycle the official CLI waits on', () => {
  it('tells a job no worker has taken up as queued', async () => {
    const { service } = exportsOf('IN_PROGRESS', []);
    expect(await service.status('acme', 'j1', BASE_URL)).toEqual({ job_id: 'j1', status: 'queued', started_at: STARTED_AT.toISOString() });
  });

  it('tells a job in progress that a worker has taken up as running', async () => {
    const { service } = exportsOf('IN_PROGRESS', [{ name: 'Exporting', attributes: {} }]);
    expect(await service.status('acme', 'j1', BASE_URL)).toEqual({ job_id: 'j1', status: 'running', started_at: STARTED_AT.toISOString() });
  });

  it('tells a completed job as done, with a link to its result on the base of the request, signed afresh for an hour on each call', async () => {
    const { service, signed } = exportsOf('COMPLETED', [
      { name: 'Exporting', attributes: {} },
      { name: 'Completed', attributes: { rows: 42, truncated: false, signed_s3_url: 'https://week-long.test/link' } },
    ]);
    const first = await service.status('acme', 'j1', BASE_URL);
    expect(first).toEqual({
      job_id: 'j1',
      status: 'done',
      started_at: STARTED_AT.toISOString(),
      download_url: 'https://api.example.test:8443/blobs/exports/acme/j1.json?n=1',
      expires_at: '2026-11-27T11:00:00.000Z',
      rows: 42,
      truncated: false,
    });
    expect((await service.status('acme', 'j1', BASE_URL)).download_url).toBe(
      'https://api.example.test:8443/blobs/exports/acme/j1.json?n=2',
    );
    expect(signed).toEqual([
      { key: 'exports/acme/j1.json', ttlSeconds: ANALYTICS_DOWNLOAD_LINK_SECONDS },
      { key: 'exports/acme/j1.json', ttlSeconds: ANALYTICS_DOWNLOAD_LINK_SECONDS },
    ]);
  });

  it('tells a failed job as failed, with its reason as failure_reason', async () => {
    const { service } = exportsOf('FAILED', [{ name: 'Failed', attributes: { reason: 'query: needs more than the memory budget' } }]);
    expect(await service.status('acme', 'j1', BASE_URL)).toEqual({
      job_id: 'j1',
      status: 'failed',
      started_at: STARTED_AT.toISOString(),
      failure_reason: 'query: needs more than the memory budget',
    });
  });

  it('answers 404 for a job of the account that is not an analytics export', async () => {
    const { service } = exportsOf('COMPLETED', [{ name: 'Completed', attributes: {} }], JobName.ExportEvents);
    await expect(service.status('acme', 'j1', BASE_URL)).rejects.toThrow(DomainError);
    await expect(service.status('acme', 'j1', BASE_URL)).rejects.toMatchObject({ code: 'not_found' });
  });
});
