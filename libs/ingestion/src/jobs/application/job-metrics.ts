import { Injectable } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { JobName, type JobStatus } from '@guidepost/contracts-http';
import { MetricsRegistry, reportScrapedGauge } from '@guidepost/platform-observability';
import { INGESTION_SCHEMA } from '../../ingestion-schema';
import { JobRepository } from '../data-access/job.repository';

/**
 * What an operator watches of the jobs: how many run now and how long the oldest has run (read from
 * the registry at every scrape, every job name reported, 0 when none runs), how they end, and the rows
 * imports read and exports write. Every replica reports the same registry, so dashboards take the `max`
 * of the gauges over replicas and the `sum` of the counters.
 */
@Injectable()
export class JobMetrics {
  private readonly finished: Counter<'job' | 'status'>;
  private readonly rows: Counter<'job'>;

  constructor(registry: MetricsRegistry, jobs: JobRepository) {
    this.finished = registry.counter({
      name: 'guidepost_jobs_finished_total',
      help: 'Jobs that ended, by job name and status (COMPLETED, FAILED)',
      labelNames: ['job', 'status'],
    });
    this.rows = registry.counter({
      name: 'guidepost_job_rows_total',
      help: 'Rows handled by bulk jobs, by job name: rows an import read, rows an export wrote',
      labelNames: ['job'],
    });
    const inProgress = async (): Promise<Map<string, { count: number; oldestAgeSeconds: number }>> => {
      const byName = new Map(Object.values(JobName).map((name) => [name as string, { count: 0, oldestAgeSeconds: 0 }]));
      for (const { name, ...state } of await jobs.inProgressByName()) byName.set(name, state);
      return byName;
    };
    reportScrapedGauge(
      registry,
      { name: 'guidepost_jobs_in_progress', help: 'Jobs in progress now, by job name', labelNames: ['job'] },
      INGESTION_SCHEMA,
      async () => [...(await inProgress())].map(([job, { count }]) => ({ labels: { job }, value: count })),
    );
    reportScrapedGauge(
      registry,
      {
        name: 'guidepost_jobs_oldest_in_progress_age_seconds',
        help: 'How long the oldest job in progress has run, by job name (0 when none runs)',
        labelNames: ['job'],
      },
      INGESTION_SCHEMA,
      async () => [...(await inProgress())].map(([job, { oldestAgeSeconds }]) => ({ labels: { job }, value: oldestAgeSeconds })),
    );
  }

  /** A job's status changed from in progress to `status`. */
  ended(job: string, status: JobStatus): void {
    this.finished.inc({ job, status });
  }

  /** A bulk job handled this many more rows. */
  handledRows(job: string, rows: number): void {
    this.rows.inc({ job }, rows);
  }
}
