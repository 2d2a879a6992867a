export { API_VERSION_HEADER, PUBLIC_API_VERSION } from './api-version';
export {
  asyncAcknowledgement,
  AsyncAcknowledgementSchema,
  ProblemSchema,
  statusAcknowledgement,
  StatusAcknowledgementSchema,
  type AsyncAcknowledgement,
  type Problem,
  type StatusAcknowledgement,
} from './schemas/common.schema';
export { JobName, JobRegistryClient, type CreatedJob } from './internal/job-registry.port';
export { UserProfileDirectory } from './internal/user-profile-directory.port';
