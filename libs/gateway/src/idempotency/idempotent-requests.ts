import type { Readable } from 'node:stream';
import { Injectable, Logger, UnprocessableEntityException } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_ANSWER_MAX_BYTES,
  IDEMPOTENT_REPLAYED_HEADER,
  isFinalAnswerStatus,
} from '@guidepost/contracts-http';
import { AppConfig } from '@guidepost/platform-config';
import { reasonOf } from '@guidepost/platform-failures';
import { DomainError } from '@guidepost/platform-errors';
import { publicApiTarget } from '../domain/public-api-target';
import { captureAnswer } from './answer-capture';
import { digestBody, HashingBody } from './hashing-body';
import { idempotencyKeyOf, replayableHeaders } from './idempotency-key';
import { IdempotencyStore, type KeyRef, type StoredAnswer } from './idempotency-store.port';

/** A claim holds this long unless renewed: a gateway that died mid-request frees its keys after it. */
export const CLAIM_LEASE_MS = 30_000;
/** How often a running request renews its claim. */
const RENEW_EVERY_MS = 10_000;
/** How long an answer waits for the last bytes of a body the client sent whole to pass the hash. */
const DIGEST_GRACE_MS = 2_000;
/** A multipart upload's boundaries and part headers, on top of the file limit, when a body is read only to compare it. */
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

/** A request that holds its key, from the claim to its answer. */
interface Claim {
  readonly ref: KeyRef;
  readonly token: string;
  readonly body: HashingBody;
  /** `running` until the answer is known; `answering` while it is stored; `done` once stored or released. */
  phase: 'running' | 'answering' | 'done';
  renewal: NodeJS.Timeout | undefined;
  abandon: NodeJS.Timeout | undefined;
}

/**
 * `Idempotency-Key` on every POST, PATCH and DELETE of the public API, in both shapes: installed by
 * `GatewayHttpHooks` after authentication, so it sees every public request whether a handler of this
 * process answers it (standalone) or the proxy streams it to a service (distributed).
 *
 * - `preParsing` (after the account is known, before any body byte is read) claims the key in the
 *   shared store. The claiming request runs, its body hashed with SHA-256 as it streams to its reader
 *   (`HashingBody`; nothing is buffered). A key held by a request still running is a 409. A key already
 *   answered is compared with this request: another method or path is a 422 at once; otherwise the body
 *   is read (hashed, not kept) and, if it is the same, the stored answer is sent again with
 *   `Idempotent-Replayed: true`, else a 422.
 * - `onSend` (the answer is known, nothing of it is sent yet) stores a final answer (2xx, 4xx but
 *   401/403/408/409/429) of a request whose body was read whole, with the headers that matter and a
 *   body of at most 1 MB (a streamed answer is held that long), before the client can see it, so an
 *   immediate retry finds it. Anything else (5xx, a body refused before its end, a larger answer)
 *   releases the key, so the client's retry runs again.
 * - A connection that closes before the answer leaves the request running in process (the handler, or
 *   the proxy's 503 once the service is cut off); if no answer comes within the upstream timeout, the
 *   key is released. While a request runs its claim is renewed; a gateway that dies leaves a claim that
 *   lapses after `CLAIM_LEASE_MS`.
 */
@Injectable()
export class IdempotentRequests {
  private readonly logger = new Logger('Idempotency');
  private readonly claims = new WeakMap<FastifyRequest, Claim>();
  private readonly comparedBodyMaxBytes: number;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly config: AppConfig,
  ) {
    this.comparedBodyMaxBytes = Math.max(config.bodyLimitBytes, config.fileLimitBytes) + MULTIPART_OVERHEAD_BYTES;
  }

  /** Call after the hooks that authenticate (the account must be the caller's) and before `app.init()`. */
  install(fastify: FastifyInstance): void {
    fastify.addHook('preParsing', (request, reply, payload, done) => {
      // Most requests carry no key: they pass at once, without a promise.
      let key: string | undefined;
      try {
        key = idempotencyKeyOf(request.method, request.headers);
      } catch (error) {
        done(error as Error);
        return;
      }
      const accountId = key === undefined ? undefined : accountOf(request);
      if (key === undefined || accountId === undefined) {
        done(null, payload);
        return;
      }
      this.beforeBody(request, reply, payload as unknown as Readable, { accountId, key }).then(
        (next) => {
          // Undefined: answered here (a replay); the rest of the request's life is skipped.
          if (next !== undefined) done(null, next as unknown as typeof payload);
        },
        (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
      );
    });
    fastify.addHook('onSend', (request, reply, payload, done) => {
      const claim = this.claims.get(request);
      if (claim === undefined || claim.phase !== 'running') {
        done(null, payload);
        return;
      }
      claim.phase = 'answering';
      this.answer(claim, reply, payload).then(
        (sent) => done(null, sent),
        (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
      );
    });
  }

  private async beforeBody(request: FastifyRequest, reply: FastifyReply, payload: Readable, ref: KeyRef): Promise<Readable | undefined> {
    const line = { method: request.method, path: request.url };
    const outcome = await this.store.claim(ref, line, { ttlSeconds: this.config.idempotencyKeyTtlSeconds, leaseMs: CLAIM_LEASE_MS });
    switch (outcome.kind) {
      case 'claimed':
        return this.run(request, reply, payload, ref, outcome.token);
      case 'running':
        throw new DomainError(
          'conflict',
          `${IDEMPOTENCY_KEY_HEADER}: a request with this key is still being processed; it is never run twice at once. ` +
            'Retry shortly to get its answer.',
          { retryAfterSeconds: 1 },
        );
      case 'answered': {
        if (outcome.request.method !== line.method || outcome.request.path !== line.path)
          throw reused(`${outcome.request.method} ${outcome.request.path}`);
        // A body longer than any the first request can have had is another body, without reading it.
        if (Number(request.headers['content-length'] ?? 0) > this.comparedBodyMaxBytes) throw reused('another body');
        const digest = await digestBody(payload, this.comparedBodyMaxBytes).catch((error: unknown) => {
          throw new DomainError('invalid_request', 'body: the connection closed before the end of the body', { cause: error });
        });
        if (digest.kind === 'too_long' || !digest.sha256.equals(outcome.bodySha256)) throw reused('another body');
        const { status, headers, body } = outcome.answer;
        void reply.code(status).headers(headers).header(IDEMPOTENT_REPLAYED_HEADER, 'true').send(body);
        return undefined;
      }
    }
  }

  private run(request: FastifyRequest, reply: FastifyReply, payload: Readable, ref: KeyRef, token: string): HashingBody {
    const body = new HashingBody(payload, request.raw);
    const claim: Claim = { ref, token, body, phase: 'running', renewal: undefined, abandon: undefined };
    this.claims.set(request, claim);
    claim.renewal = setInterval(() => void this.renew(claim), RENEW_EVERY_MS);
    claim.renewal.unref();
    reply.raw.once('close', () => {
      body.detach();
      if (claim.phase !== 'running') return;
      // No answer yet: the handler (or the proxy, once the service is cut off) may still reach one.
      claim.abandon = setTimeout(() => {
        if (claim.phase === 'running') void this.release(claim);
      }, this.config.gatewayUpstreamTimeoutMs);
      claim.abandon.unref();
    });
    return body;
  }

  private async answer(claim: Claim, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const status = reply.statusCode;
    if (!isFinalAnswerStatus(status)) {
      await this.release(claim);
      return payload;
    }
    const bodySha256 = await claim.body.digestWithin(DIGEST_GRACE_MS);
    if (bodySha256 === undefined) {
      // Answered before the whole body was read (refused early, cut off): another request than the one sent.
      await this.release(claim);
      return payload;
    }
    let captured;
    try {
      captured = await captureAnswer(payload, IDEMPOTENT_ANSWER_MAX_BYTES);
    } catch (error) {
      await this.release(claim);
      throw error;
    }
    if (captured.kind !== 'whole') {
      await this.release(claim);
      return captured.payload;
    }
    await this.complete(claim, bodySha256, { status, headers: replayableHeaders(reply.getHeaders()), body: captured.body });
    return captured.payload;
  }

  private async complete(claim: Claim, bodySha256: Buffer, answer: StoredAnswer): Promise<void> {
    this.settle(claim);
    try {
      const stored = await this.store.complete(claim.ref, claim.token, bodySha256, answer);
      if (!stored) this.logger.warn(`the answer to ${IDEMPOTENCY_KEY_HEADER} '${claim.ref.key}' was not stored: its claim had lapsed`);
    } catch (error) {
      // The answer still goes out; the claim lapses after its lease, and a retry then runs again.
      this.logger.warn(`the answer to ${IDEMPOTENCY_KEY_HEADER} '${claim.ref.key}' could not be stored: ${reasonOf(error)}`);
    }
  }

  private async release(claim: Claim): Promise<void> {
    this.settle(claim);
    try {
      await this.store.release(claim.ref, claim.token);
    } catch (error) {
      this.logger.warn(`${IDEMPOTENCY_KEY_HEADER} '${claim.ref.key}' could not be released (it lapses on its own): ${reasonOf(error)}`);
    }
  }

  private async renew(claim: Claim): Promise<void> {
    if (claim.phase === 'done') return;
    try {
      if (!(await this.store.renew(claim.ref, claim.token, CLAIM_LEASE_MS))) this.settle(claim);
    } catch (error) {
      this.logger.warn(`${IDEMPOTENCY_KEY_HEADER} '${claim.ref.key}': its claim could not be renewed: ${reasonOf(error)}`);
    }
  }

  private settle(claim: Claim): void {
    claim.phase = 'done';
    clearInterval(claim.renewal);
    clearTimeout(claim.abandon);
  }
}

function reused(first: string): UnprocessableEntityException {
  return new UnprocessableEntityException(
    `${IDEMPOTENCY_KEY_HEADER}: this key was first used with ${first}; a key names one request (method, path with query ` +
      'and body), so send another request under a new key',
  );
}

/** The account the path names; the gateway's `onRequest` hook has checked it is the caller's. */
function accountOf(request: FastifyRequest): string | undefined {
  const params = request.params as Record<string, unknown> | undefined;
  const accountParam = typeof params?.['account_id'] === 'string' ? params['account_id'] : undefined;
  const target = publicApiTarget({ url: request.url, routePattern: request.routeOptions.url, accountParam });
  return target.guarded ? target.accountId : undefined;
}
