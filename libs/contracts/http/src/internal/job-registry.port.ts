/** A job as its creator needs it right after creating it. */
export interface CreatedJob {
  readonly id: string;
  readonly startedAt: string;
}

/**
 * Creates jobs in the job registry (owned by the ingestion service). Creation is synchronous so that
 * the `job_url` of a 202 answers at once; progress and completion then arrive as `JobEventRecorded`
 * messages on the bus. Standalone binds the registry in process; the distributed shape calls the
 * ingestion service's internal HTTP API.
 */
export abstract class JobRegistryClient {
  abstract createJob(input: { readonly accountId: string; readonly name: string }): Promise<CreatedJob>;
  /**
   * Ends a job whose work was never recorded (the creator's transaction failed after the job was
   * created) as `Failed` with the reason, so that it does not stay in progress for ever. Doing it
   * twice is harmless.
   */
  abstract abandonJob(input: { readonly accountId: string; readonly jobId: string; readonly reason: string }): Promise<void>;
}

/**
 * The jobs one request creates in another service's registry before its own transaction commits.
 * `around` runs the request's work; when the work fails (its transaction rolled back, so nothing the
 * jobs stand for was recorded), every job it created is abandoned, and the work's error is thrown on.
 */
export class JobsOfOneRequest {
  private readonly created: { accountId: string; jobId: string }[] = [];

  private constructor(private readonly registry: JobRegistryClient) {}

  static async around<R>(registry: JobRegistryClient, work: (jobs: JobsOfOneRequest) => Promise<R>): Promise<R> {
    const jobs = new JobsOfOneRequest(registry);
    try {
      return await work(jobs);
    } catch (error) {
      await jobs.abandonAll(error);
      throw error;
    }
  }

  async createJob(input: { readonly accountId: string; readonly name: string }): Promise<CreatedJob> {
    const job = await this.registry.createJob(input);
    this.created.push({ accountId: input.accountId, jobId: job.id });
    return job;
  }

  /** Best effort: should the registry be unreachable too, the caller's own error is still the one thrown. */
  private async abandonAll(error: unknown): Promise<void> {
    const reason = `The request failed before its work was recorded: ${error instanceof Error ? error.message : String(error)}`;
    await Promise.all(this.created.map((job) => this.registry.abandonJob({ ...job, reason }).catch(() => undefined)));
  }
}

/** The names jobs are listed under (`name` of a job summary). */
export const JobName = {
  ImportProfiles: 'Import Profiles',
  ImportGroups: 'Import Groups',
  ImportEvents: 'Import Events',
  ExportEvents: 'Export Events',
  ExportAnalytics: 'Export Analytics',
  DeleteProfile: 'Delete Profile',
  AddSegmentUsers: 'Add Segment Users',
  RemoveSegmentUsers: 'Remove Segment Users',
  ExportSegmentMembership: 'Export Segment Membership',
} as const;
export type JobName = (typeof JobName)[keyof typeof JobName];
