import { Type, type Static } from '@sinclair/typebox';
import { JobName } from './job-registry.port';

/**
 * The header through which the gateway and the services present the shared internal token
 * (`GUIDEPOST_INTERNAL_TOKEN`) to a service of the distributed shape; a service refuses any other caller.
 */
export const INTERNAL_TOKEN_HEADER = 'x-guidepost-internal-token';

/**
 * The header through which the gateway states, on each public request it forwards, the account whose
 * API key it checked: `<account id, percent-encoded>.<proof>`, the proof an HMAC of the account id keyed
 * with the internal token. A service serves a public route only for the account stated there.
 */
export const AUTHENTICATED_ACCOUNT_HEADER = 'x-guidepost-authenticated-account';

/**
 * The header through which the gateway states, on each request it forwards, the base URL of the links
 * its client is to be given (`https://api.example.com`, no trailing slash), derived from the client's
 * own request. A service takes it only from a caller that presents the internal token.
 */
export const PUBLIC_BASE_URL_HEADER = 'x-guidepost-public-base-url';

/** `POST /internal/v1/accounts/{account_id}/jobs` (ingestion): creates a job, answers 201 `CreatedJob`. */
export function internalJobsPath(accountId: string): string {
  return `/internal/v1/accounts/${encodeURIComponent(accountId)}/jobs`;
}

// The request bodies of the internal API are closed (`additionalProperties: false`): both ends are
// built from these schemas, so a field the callee does not know means the two disagree, which a 400
// shows at once, where an ignored field would leave the call half understood.
export const CreateJobRequestSchema = Type.Object(
  { name: Type.Union(Object.values(JobName).map((name) => Type.Literal(name))) },
  { additionalProperties: false },
);
export type CreateJobRequest = Static<typeof CreateJobRequestSchema>;

export const CreatedJobSchema = Type.Object({ id: Type.String({ minLength: 1 }), startedAt: Type.String({ minLength: 1 }) });

/** `POST /internal/v1/accounts/{account_id}/jobs/{job_id}/abandon` (ingestion): ends the job `Failed`, answers 200 `AbandonedJob`. */
export function internalAbandonJobPath(accountId: string, jobId: string): string {
  return `${internalJobsPath(accountId)}/${encodeURIComponent(jobId)}/abandon`;
}

export const AbandonJobRequestSchema = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: 4096 }) },
  { additionalProperties: false },
);
export type AbandonJobRequest = Static<typeof AbandonJobRequestSchema>;

export const AbandonedJobSchema = Type.Object({ abandoned: Type.Boolean() });

/** `POST /internal/v1/accounts/{account_id}/user-profiles/lookup` (profile): answers 200 `ProfileLookupResponse`. */
export function internalProfileLookupPath(accountId: string): string {
  return `/internal/v1/accounts/${encodeURIComponent(accountId)}/user-profiles/lookup`;
}

/** The most user ids one lookup takes: a page of a membership export, a bounded answer. */
export const PROFILE_LOOKUP_MAX_USER_IDS = 5000;

export const ProfileLookupRequestSchema = Type.Object(
  { user_ids: Type.Array(Type.String(), { maxItems: PROFILE_LOOKUP_MAX_USER_IDS }) },
  { additionalProperties: false },
);
export type ProfileLookupRequest = Static<typeof ProfileLookupRequestSchema>;

/** The properties of each user that has a profile; users without one are absent. */
export const ProfileLookupResponseSchema = Type.Object({
  profiles: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown())),
});
export type ProfileLookupResponse = Static<typeof ProfileLookupResponseSchema>;
