/**
 * The kinds of failure application code reports. They are not HTTP: each maps to exactly one HTTP
 * status in the HTTP layer (`problemOf` of @guidepost/platform-http), which renders Problem Details.
 * Whether a failure passes with a retry is another question, answered by @guidepost/platform-failures.
 */
export type ErrorCode =
  | 'invalid_request'
  | 'not_found'
  /** The path exists, but not under this method; `allowedMethods` says which it takes. */
  | 'method_not_allowed'
  | 'conflict'
  | 'unauthenticated'
  | 'forbidden'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'throttled'
  /** Something this request needs (another service) cannot be reached; retrying later may succeed. */
  | 'unavailable'
  /** Another service took too long to answer (the gateway's upstream timeout). */
  | 'upstream_timeout';

export interface DomainErrorOptions {
  /** For `throttled`: whole seconds until the client may retry; sent as `Retry-After`. */
  readonly retryAfterSeconds?: number;
  /** For `method_not_allowed`: the methods the path takes; sent as `Allow`. */
  readonly allowedMethods?: readonly string[];
  /** For `unsupported_media_type` of a body's coding: the codings taken; sent as `Accept-Encoding`. */
  readonly acceptedEncodings?: readonly string[];
  /** What failed underneath, for the log (5xx are logged with their cause); never shown to the client. */
  readonly cause?: unknown;
}

/**
 * A failure the client can act on. Application code throws it; the HTTP layer turns it into a
 * Problem Details response in one place (`problemOf`), so no handler builds error responses itself. `detail` is
 * shown to the client as is: name the field, row or line at fault.
 */
export class DomainError extends Error {
  readonly retryAfterSeconds: number | undefined;
  readonly allowedMethods: readonly string[] | undefined;
  readonly acceptedEncodings: readonly string[] | undefined;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    options: DomainErrorOptions = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.allowedMethods = options.allowedMethods;
    this.acceptedEncodings = options.acceptedEncodings;
  }
}

/** The standard "does not exist" failure, e.g. `Segment 'abc' was not found`. */
export function notFound(resource: string, id: string): DomainError {
  return new DomainError('not_found', `${resource} '${id}' was not found`);
}
