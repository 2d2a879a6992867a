export { API_VERSION_HEADER, PUBLIC_API_VERSION } from './api-version';
export {
  asyncAcknowledgement,
  jobUrlOf,
  AsyncAcknowledgementSchema,
  ProblemSchema,
  statusAcknowledgement,
  StatusAcknowledgementSchema,
  type AsyncAcknowledgement,
  type Problem,
  type StatusAcknowledgement,
} from './schemas/common.schema';
export { JobName, JobRegistryClient, JobsOfOneRequest, type CreatedJob } from './internal/job-registry.port';
export { UserProfileDirectory } from './internal/user-profile-directory.port';
export {
  type AbandonJobRequest,
  AbandonJobRequestSchema,
  type CreateJobRequest,
  CreateJobRequestSchema,
  AUTHENTICATED_ACCOUNT_HEADER,
  INTERNAL_TOKEN_HEADER,
  PUBLIC_BASE_URL_HEADER,
  type ProfileLookupRequest,
  ProfileLookupRequestSchema,
  type ProfileLookupResponse,
} from './internal/internal-api.schema';
export { InternalApiError, type InternalApiOptions } from './internal/internal-api-caller';
export { HttpJobRegistryClient } from './internal/http-job-registry-client';
export { HttpUserProfileDirectory } from './internal/http-user-profile-directory';
export {
  JOB_LIST_LIMIT,
  JOB_STATUSES,
  JobDetailSchema,
  JobEventSchema,
  JobSummarySchema,
  type JobDetail,
  type JobEvent,
  type JobStatus,
  type JobSummary,
} from './schemas/jobs.schema';
export * from './schemas/content.schema';
export * from './schemas/experience-kinds';
export * from './schemas/segment.schema';
export * from './admin';
export { buildOpenApiDocument } from './openapi/openapi-document';
export * from './schemas/profiles.schema';
export * from './schemas/events.schema';
export * from './schemas/imports.schema';
export * from './schemas/exports.schema';
export * from './schemas/analytics.schema';
export * from './schemas/input-limits';
export * from './schemas/storable-values';
export * from './idempotency';
