import { setTimeout as sleep } from 'node:timers/promises';
import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describeNetworkError, problemDetail } from '../http-failure';
import { INTERNAL_TOKEN_HEADER } from './internal-api.schema';

/** The service an internal call goes to, by the name its settings use. */
export type InternalService = 'ingestion' | 'profile';

/**
 * Whether a failed call may be sent again:
 * - `idempotent` (a lookup): when the connection failed, or the service answered 503 (starting, overloaded);
 * - `not-idempotent` (a creation): only when the request certainly never reached the service (the
 *   connection was refused or the name did not resolve). After a timeout or a reset the service may
 *   have acted, and a blind retry would act twice.
 */
export type RetryPolicy = 'idempotent' | 'not-idempotent';

export interface InternalApiOptions {
  /** The longest one attempt may take, from connecting to the last byte of the answer. */
  readonly timeoutMs?: number;
  /** The pause before each retry; as many retries as pauses. */
  readonly retryDelaysMs?: readonly number[];
}

const DEFAULT_OPTIONS: Required<InternalApiOptions> = { timeoutMs: 10_000, retryDelaysMs: [250, 750, 2250] };

/** Socket errors raised before a request was sent: nothing reached the service. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * How a call failed: `not-sent` (the service was never reached), `no-answer` (the connection broke),
 * `timeout`, or `answered` (a status or a body other than the expected one).
 */
export type InternalCallFailure = 'not-sent' | 'no-answer' | 'timeout' | 'answered';

/** A call to another service's internal API failed; the message says which service, what and how. */
export class InternalApiError extends Error {
  constructor(
    readonly service: InternalService,
    readonly failure: InternalCallFailure,
    /** The status the service answered; undefined when it did not answer. */
    readonly status: number | undefined,
    /** The Problem `detail` of the answer, or why there was none. */
    readonly detail: string,
    operation: string,
  ) {
    super(`the ${service} service could not ${operation}: ${detail}`);
    this.name = 'InternalApiError';
  }
}

export interface InternalCall<S extends TSchema> {
  /** What the call does, for errors: `create a job`. */
  readonly operation: string;
  readonly path: string;
  readonly body: unknown;
  readonly expectedStatus: number;
  readonly answerSchema: S;
  readonly retry: RetryPolicy;
}

/**
 * POSTs JSON to one service's internal API (`/internal/v1/...`) with the internal token, a timeout per
 * attempt and retries as the call's policy allows, and checks the answer against its schema.
 */
export class InternalApiCaller {
  private readonly baseUrl: string;
  private readonly token: string;
  private readonly options: Required<InternalApiOptions>;

  constructor(
    private readonly service: InternalService,
    baseUrl: string | undefined,
    internalToken: string | undefined,
    options: InternalApiOptions = {},
  ) {
    if (!baseUrl) throw new Error(`the ${service} service's URL is required (GUIDEPOST_${service.toUpperCase()}_SERVICE_URL)`);
    if (!internalToken) throw new Error(`the internal token is required to call the ${service} service (GUIDEPOST_INTERNAL_TOKEN)`);
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.token = internalToken;
    this.options = { ...DEFAULT_OPTIONS, ...options };
  }

  async post<S extends TSchema>(call: InternalCall<S>): Promise<Static<S>> {
    const pauses = [...this.options.retryDelaysMs];
    for (;;) {
      try {
        return await this.attempt(call);
      } catch (error) {
        const pause = pauses.shift();
        if (pause === undefined || !(error instanceof InternalApiError) || !mayRetry(error, call.retry)) throw error;
        await sleep(pause);
      }
    }
  }

  private async attempt<S extends TSchema>(call: InternalCall<S>): Promise<Static<S>> {
    const fail = (failure: InternalCallFailure, status: number | undefined, detail: string): InternalApiError =>
      new InternalApiError(this.service, failure, status, detail, call.operation);
    let status: number;
    let text: string;
    try {
      // One signal for the whole attempt, so that a body that trickles in times out too.
      const signal = AbortSignal.timeout(this.options.timeoutMs);
      const response = await fetch(`${this.baseUrl}${call.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', [INTERNAL_TOKEN_HEADER]: this.token },
        body: JSON.stringify(call.body),
        signal,
      });
      status = response.status;
      text = await response.text();
      if (status !== call.expectedStatus)
        throw fail('answered', status, `it answered ${status} (${problemDetail(text, response.statusText)})`);
    } catch (error) {
      if (error instanceof InternalApiError) throw error;
      if (isTimeout(error)) throw fail('timeout', undefined, `no answer within ${this.options.timeoutMs} ms from ${this.baseUrl}`);
      const reason = describeNetworkError(error);
      throw fail(NOT_SENT.has(reason) ? 'not-sent' : 'no-answer', undefined, `cannot reach ${this.baseUrl} (${reason})`);
    }
    const answer = parseJson(text);
    if (!Value.Check(call.answerSchema, answer)) throw fail('answered', status, `it answered ${status} with an unexpected body`);
    return answer;
  }
}

function mayRetry(error: InternalApiError, policy: RetryPolicy): boolean {
  switch (policy) {
    case 'idempotent':
      return error.failure === 'not-sent' || error.failure === 'no-answer' || error.status === 503;
    case 'not-idempotent':
      return error.failure === 'not-sent';
  }
}

/** `AbortSignal.timeout` rejects with a DOMException named `TimeoutError` (read by shape: another realm). */
function isTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'name' in error && error.name === 'TimeoutError';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
