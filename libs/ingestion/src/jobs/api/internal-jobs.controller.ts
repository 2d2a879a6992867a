import { Controller, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { AbandonJobRequestSchema, CreateJobRequestSchema, type CreatedJob } from '@guidepost/contracts-http';
import { AcceptsBody, compileValidator, InboundBody, InternalCallerGuard } from '@guidepost/platform-http';
import { JobRegistry } from '../application/job-registry.service';

const validateCreateJob = compileValidator(CreateJobRequestSchema);
const validateAbandonJob = compileValidator(AbandonJobRequestSchema);

/**
 * The job registry for the other services of the distributed shape (`HttpJobRegistryClient`): creates a
 * job and answers 201 with it at once, so their 202's `job_url` answers. Not part of the public API.
 */
@Controller('internal/v1/accounts/:account_id/jobs')
@UseGuards(InternalCallerGuard)
export class InternalJobsController {
  constructor(private readonly registry: JobRegistry) {}

  @Post()
  @AcceptsBody('json')
  create(@Param('account_id') accountId: string, @InboundBody() body: InboundBody): Promise<CreatedJob> {
    // No body at all is judged like `{}`, so the answer names the missing field.
    const { name } = validateCreateJob(body.kind === 'json' ? body.value : {});
    return this.registry.createJob({ accountId, name });
  }

  /** Ends a job whose creator's transaction failed (`JobsOfOneRequest`) as `Failed`; answers 200. */
  @Post(':job_id/abandon')
  @HttpCode(200)
  @AcceptsBody('json')
  async abandon(@Param('account_id') accountId: string, @Param('job_id') jobId: string, @InboundBody() body: InboundBody): Promise<{ abandoned: true }> {
    const { reason } = validateAbandonJob(body.kind === 'json' ? body.value : {});
    await this.registry.abandonJob({ accountId, jobId, reason });
    return { abandoned: true };
  }
}
