import { STATUS_CODES } from 'node:http';
import { HttpException } from '@nestjs/common';
import type { Problem } from '@guidepost/contracts-http';
import { classifyFailure } from '@guidepost/platform-failures';
import { unsupportedMediaTypeDetail } from '../body/media-types';
import { DomainError, type ErrorCode } from '@guidepost/platform-errors';
import { payloadTooLarge } from './size-limit';

/**
 * The longest path parameter (an id in the path, once percent-decoded, in UTF-16 units); the router
 * refuses longer ones with 414 before any route runs. Fastify's default of 100 would refuse real user
 * ids (e-mail addresses run longer); ids have tighter rules of their own, checked where they are used.
 */
export const MAX_PATH_PARAMETER_CHARS = 1024;

/** A Problem Details response: status, body and any extra headers (e.g. `Retry-After`). */
export interface ProblemResponse {
  readonly status: number;
  readonly body: Problem;
  readonly headers: Readonly<Record<string, string>>;
}

/** The configured size limits, so that a 413 can name the one that was exceeded. */
export interface SizeLimits {
  readonly bodyLimitBytes: number;
  readonly fileLimitBytes: number;
}

/** Errors of Fastify and its plugins (`@fastify/error`): a code and an HTTP status. */
interface FastifyLikeError extends Error {
  readonly code: string;
  readonly statusCode: number;
}

const UNEXPECTED_DETAIL = 'An unexpected error occurred; it has been logged';

/**
 * The one mapping from anything thrown to a Problem Details response. It serves the global exception
 * filter, which Nest also installs as Fastify's error handler (during `app.init()`, replacing any set
 * before), so failures in content-type parsers and Fastify hooks, which run before Nest, end here
 * too; Nest hands those over as `HttpException`s carrying Fastify's status and message. Errors that
 * are neither domain nor HTTP errors become a 503 with `Retry-After` when a dependency is down (a
 * transient failure, see `classifyFailure`), else a 500 with a generic detail: internals never reach
 * the client, and the caller logs every 5xx.
 */
export function problemOf(error: unknown, limits: SizeLimits): ProblemResponse {
  if (error instanceof DomainError) return fromDomainError(error);
  if (error instanceof HttpException) return fromHttpException(error, limits);
  if (isFastifyError(error) && error.statusCode < 500) return fromFastifyError(error, limits);
  if (classifyFailure(error) === 'transient') return dependencyUnavailable();
  return problem(500, UNEXPECTED_DETAIL);
}

/** How long a client is asked to wait when a store or service it needs is down (a restart takes seconds). */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

/**
 * A database, store or service this request needs is down, restarting or not answering: the client
 * may send the request again after `Retry-After`. A unit of work commits whole or not at all, but a
 * store that stopped answering (frozen) may still carry out what it was sent once it answers again, so
 * the answer promises nothing either way; a retry with the same `Idempotency-Key` never acts twice.
 */
function dependencyUnavailable(): ProblemResponse {
  const detail =
    'A service this request needs is temporarily unavailable. Retry after the time in Retry-After; with the same Idempotency-Key, a retry never acts twice.';
  return { ...problem(503, detail), headers: { 'retry-after': String(DEPENDENCY_RETRY_AFTER_SECONDS) } };
}

function fromDomainError(error: DomainError): ProblemResponse {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(Math.max(0, Math.ceil(error.retryAfterSeconds)));
  if (error.allowedMethods !== undefined) headers['allow'] = error.allowedMethods.join(', ');
  if (error.acceptedEncodings !== undefined) headers['accept-encoding'] = error.acceptedEncodings.join(', ');
  return { ...problem(statusOf(error.code), error.detail), headers };
}

function statusOf(code: ErrorCode): number {
  switch (code) {
    case 'invalid_request':
      return 400;
    case 'unauthenticated':
      return 401;
    case 'forbidden':
      return 403;
    case 'not_found':
      return 404;
    case 'method_not_allowed':
      return 405;
    case 'conflict':
      return 409;
    case 'payload_too_large':
      return 413;
    case 'unsupported_media_type':
      return 415;
    case 'throttled':
      return 429;
    case 'unavailable':
      return 503;
    case 'upstream_timeout':
      return 504;
  }
}

/**
 * Nest's own exceptions, and Fastify's errors from before routing as Nest hands them over. Fastify's
 * 413 and 415 messages are generic (the only 413 it raises there is the body limit), so those two get
 * a detail that says what to change.
 */
function fromHttpException(exception: HttpException, limits: SizeLimits): ProblemResponse {
  const status = exception.getStatus();
  if (status === 413) return fromDomainError(payloadTooLarge('request body', limits.bodyLimitBytes));
  if (status === 415) return problem(415, unsupportedMediaTypeDetail('this Content-Type'));
  return problem(status, messageOf(exception));
}

/**
 * Client errors of Fastify itself: the body limit, and the router's refusals before any route runs
 * (`frameworkErrors`), whose own messages quote the whole path.
 */
function fromFastifyError(error: FastifyLikeError, limits: SizeLimits): ProblemResponse {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return fromDomainError(payloadTooLarge('request body', limits.bodyLimitBytes));
    case 'FST_ERR_BAD_URL':
      return problem(
        400,
        'path: is not a valid URL (a % must start an escape of two hexadecimal digits, and the escapes must spell UTF-8 text)',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return problem(414, `path: a path segment (an id) is longer than ${MAX_PATH_PARAMETER_CHARS} characters`);
    default:
      return problem(error.statusCode, error.message);
  }
}

/** A Problem Details response with a status and a detail, for errors that are answered without being thrown. */
export function problem(status: number, detail: string): ProblemResponse {
  return { status, body: { error: true, status, title: STATUS_CODES[status] ?? 'Error', detail }, headers: {} };
}

/** Nest exceptions carry either a string or `{ message: string | string[] }` (validation pipes). */
function messageOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

function isFastifyError(error: unknown): error is FastifyLikeError {
  return (
    error instanceof Error &&
    typeof (error as Partial<FastifyLikeError>).statusCode === 'number' &&
    typeof (error as Partial<FastifyLikeError>).code === 'string'
  );
}
