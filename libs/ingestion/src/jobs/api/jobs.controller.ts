import { Controller, Get, Param } from '@nestjs/common';
import { jobUrlOf, type JobDetail, type JobSummary } from '@guidepost/contracts-http';
import { AppConfig } from '@guidepost/platform-config';
import { CsvRendering, IdentifierParam } from '@guidepost/platform-http';
import { JobRegistry } from '../application/job-registry.service';
import { toJobDetail, toJobSummary } from './job.presenter';

/** Offline jobs of an account: the recent ones, and one with its events. */
@Controller('v2/accounts/:account_id/jobs')
export class JobsController {
  constructor(
    private readonly registry: JobRegistry,
    private readonly config: AppConfig,
  ) {}

  @Get()
  async list(@Param('account_id') accountId: string): Promise<JobSummary[]> {
    const jobs = await this.registry.recentJobs(accountId);
    return jobs.map((job) => toJobSummary(job, this.jobUrl(accountId, job.id)));
  }

  @Get(':job_id')
  @CsvRendering({ omit: ['events'] })
  async detail(@Param('account_id') accountId: string, @Param('job_id', IdentifierParam) jobId: string): Promise<JobDetail> {
    const { job, events } = await this.registry.jobWithEvents(accountId, jobId);
    return toJobDetail(job, events, this.jobUrl(accountId, job.id));
  }

  private jobUrl(accountId: string, jobId: string): string {
    return jobUrlOf(this.config.publicUrl, accountId, jobId);
  }
}
