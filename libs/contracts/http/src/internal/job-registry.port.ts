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
}

/** The names jobs are listed under (`name` of a job summary). */
export const JobName = {
  ImportProfiles: 'Import Profiles',
  ImportGroups: 'Import Groups',
  ImportEvents: 'Import Events',
  ExportEvents: 'Export Events',
  DeleteProfile: 'Delete Profile',
  AddSegmentUsers: 'Add Segment Users',
  RemoveSegmentUsers: 'Remove Segment Users',
  ExportSegmentMembership: 'Export Segment Membership',
} as const;
export type JobName = (typeof JobName)[keyof typeof JobName];
