import { Injectable } from '@nestjs/common';
import { emitJobEvent } from '@guidepost/contracts-events';
import { type CreatedJob, JobName, JobRegistryClient, JobsOfOneRequest } from '@guidepost/contracts-http';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { profileDeletedEvent } from '../domain/profile-deletion';
import { ProfileRepository } from '../data-access/profile.repository';
import { PROFILE_SCHEMA } from '../data-access/profile-schema';

/**
 * Deleting a user profile: an offline operation by contract (202 with a job), done right after the
 * job is created. The row goes and the job's `Completed` is recorded in one transaction, so the job
 * completes exactly when the profile is gone. The user id was checked in the path (`IdentifierParam`).
 */
@Injectable()
export class ProfileDeletionService {
  constructor(
    private readonly profiles: ProfileRepository,
    private readonly jobs: JobRegistryClient,
    @InjectUnitOfWork(PROFILE_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  async deleteUserProfile(accountId: string, userId: string): Promise<CreatedJob> {
    return JobsOfOneRequest.around(this.jobs, async (jobs) => {
      const job = await jobs.createJob({ accountId, name: JobName.DeleteProfile });
      await this.unitOfWork.run(async (tx) => {
        const deleted = await this.profiles.deleteUser(tx.manager, accountId, userId);
        emitJobEvent(tx, { jobId: job.id, accountId }, profileDeletedEvent(deleted, new Date(job.startedAt), new Date()));
      });
      return job;
    });
  }
}
