import { Type } from '@sinclair/typebox';

/**
 * The public base URL of the request that asked for a job (`@PublicBaseUrl()` of platform-http), which
 * the links the job reports later start with (an import's failures, an export's download), as the
 * links of that request's own answer did. Optional, so that a message written before it was recorded
 * is still handled: its links take the process's default base (`AppConfig.jobLinkBaseUrl`).
 */
export const LinkBaseUrlField = Type.Optional(Type.String({ pattern: '^https?://' }));
