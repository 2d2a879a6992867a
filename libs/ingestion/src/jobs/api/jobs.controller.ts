import { Controller, Get, Param } from '@nestjs/common';
import { jobUrlOf, type JobDetail, type JobSummary } from '@guidepost/contracts-http';
import { CsvRendering, IdentifierParam, PublicBaseUrl } from '@guidepost/platform-http';
import { JobRegistry } from '../application/job-registry.service';
import { toJobDetail, toJobSummary } from './job.presenter';

/** Offline jobs of an account: the recent ones, and one with its events. */
@Controller('v2/accounts/:account_id/jobs')
export class JobsController {
  constructor(private readonly registry: JobRegistry) {}

  @Get()
  async list(@Param('account_id') accountId: string, @PublicBaseUrl() baseUrl: string): Promise<JobSummary[]> {
    const jobs = await this.registry.recentJobs(accountId);
    return jobs.map((job) => toJobSummary(job, jobUrlOf(baseUrl, accountId, job.id)));
  }

  @Get(':job_id')
  @CsvRendering({ omit: ['events'] })
  async detail(
    @Param('account_id') accountId: string,
    @Param('job_id', IdentifierParam) jobId: string,
    @PublicBaseUrl() baseUrl: string,
  ): Promise<JobDetail> {
    const { job, events } = await this.registry.jobWithEvents(accountId, jobId);
    return toJobDetail(job, events, jobUrlOf(baseUrl, accountId, job.id));
  }
}
