import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import {
  type AbandonJobRequest,
  AbandonJobRequestSchema,
  type CreatedJob,
  type CreateJobRequest,
  CreateJobRequestSchema,
} from '@guidepost/contracts-http';
import { ValidBody } from '@guidepost/platform-http';
import { JobRegistry } from '../application/job-registry.service';

/**
 * The job registry for the other services of the distributed shape (`HttpJobRegistryClient`): creates a
 * job and answers 201 with it at once, so their 202's `job_url` answers. Not part of the public API.
 */
@Controller('internal/v1/accounts/:account_id/jobs')
export class InternalJobsController {
  constructor(private readonly registry: JobRegistry) {}

  @Post()
  create(@Param('account_id') accountId: string, @ValidBody(CreateJobRequestSchema) { name }: CreateJobRequest): Promise<CreatedJob> {
    return this.registry.createJob({ accountId, name });
  }

  /** Ends a job whose creator's transaction failed (`JobsOfOneRequest`) as `Failed`; answers 200. */
  @Post(':job_id/abandon')
  @HttpCode(200)
  async abandon(
    @Param('account_id') accountId: string,
    @Param('job_id') jobId: string,
    @ValidBody(AbandonJobRequestSchema) { reason }: AbandonJobRequest,
  ): Promise<{ abandoned: true }> {
    await this.registry.abandonJob({ accountId, jobId, reason });
    return { abandoned: true };
  }
}
