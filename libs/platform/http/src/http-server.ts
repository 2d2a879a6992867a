import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Readable } from 'node:stream';
import { TextDecoder } from 'node:util';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyHttpOptions, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_VERSION_HEADER, PUBLIC_API_VERSION, textProblem } from '@guidepost/contracts-http';
import type { AppConfig } from '@guidepost/platform-config';
import { answerConnectionError } from './errors/connection-errors';
import { DomainError } from '@guidepost/platform-errors';
import { MAX_PATH_PARAMETER_CHARS, problemOf } from './errors/problem';
import { payloadTooLarge } from './errors/size-limit';
import { limitBytes } from './body/byte-limit';
import { decodedBytes, decodedStream } from './body/content-coding';
import { jsonValueProblem, NESTED_TOO_DEEP, nestsTooDeep } from './body/json-checks';
import { describeSentMediaType, MEDIA_TYPES_OF, mediaTypeOf, unsupportedMediaTypeDetail } from './body/media-types';
import { readPath } from './routing/canonical-path';
import { installTokenRoutes } from './auth/token-routes.hooks';
import { recordPublicBaseUrls } from './links/public-base-url.hooks';
import { RouteTable } from './routing/route-table';
import { NO_STORE, SAFE_ANSWER_HEADERS } from './safe-answer-headers';

export const REQUEST_ID_HEADER = 'x-request-id';

/** A caller's request id is kept when it is a sane token; anything else gets a fresh one. */
const ACCEPTABLE_REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The request line and headers together may hold this much (Node's default, stated so it is documented). */
export const MAX_HEADER_BYTES = 16 * 1024;

/** How often Node looks for requests past their time; its 30 s default would let a short timeout run long. */
const TIMEOUT_CHECKS_PER_TIMEOUT = 4;
const MAX_TIMEOUT_CHECK_INTERVAL_MS = 30_000;
/** Node's default time for the headers alone, kept unless the whole request has less. */
const HEADERS_TIMEOUT_MS = 60_000;

/**
 * Options for `new FastifyAdapter(...)`. Fastify's logger stays off (observability logs requests and
 * gives lines logged meanwhile the request id, without a child logger per request),
 * and the request id is computed here rather than through `requestIdHeader`, which would take any
 * header value as it is into every log line and response. What Node's parser and Fastify's router
 * refuse before any route runs (malformed URLs, oversized heads, requests that do not arrive in
 * time) is answered with Problem Details too, naming the limit and never quoting the request.
 */
export function fastifyAdapterOptions(config: AppConfig): FastifyHttpOptions<Server> {
  return {
    bodyLimit: config.bodyLimitBytes,
    // `X-Forwarded-*` is believed from the configured proxies only, so that no client chooses the
    // host and scheme its links name (`public-base-url.ts`) or the address `request.ip` reports.
    trustProxy: (address: string) => config.trustedProxies.trusts(address),
    logger: false,
    requestIdHeader: false,
    genReqId: requestIdOf,
    // A request, body included, must arrive within this time: a client trickling bytes cannot hold a
    // connection (and a handler waiting on its body) forever. Answered 408 by `answerConnectionError`.
    requestTimeout: config.requestTimeoutMs,
    http: {
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, config.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(MAX_TIMEOUT_CHECK_INTERVAL_MS, Math.ceil(config.requestTimeoutMs / TIMEOUT_CHECKS_PER_TIMEOUT)),
    },
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_CHARS },
    clientErrorHandler: answerConnectionError({ maxHeaderBytes: MAX_HEADER_BYTES, requestTimeoutMs: config.requestTimeoutMs }),
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
      answerFrameworkError(error, request, reply, config),
  };
}

function requestIdOf(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && ACCEPTABLE_REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * The router's refusals (a malformed percent escape, a path parameter over the limit), which Fastify
 * answers before any hook, route or error handler; its own answers are not Problem Details and quote
 * the whole path.
 */
function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply, config: AppConfig): void {
  const { status, body, headers } = problemOf(error, config);
  // Fastify sends these answers without running the `onSend` hooks, so they are stamped here.
  stampHeaders(request, reply);
  void reply.status(status).headers(headers).type('application/json; charset=utf-8').send(body);
}

/**
 * Body intake, request checks and response identity for a Nest application on Fastify. Call before
 * `app.init()`, on an app created with `{ bodyParser: false }` (so Nest adds no parsers of its own).
 * Returns a promise, as hosts await it.
 */
export interface HttpServerOptions {
  /**
   * Installs hooks that must judge a request after its path was read and before any credential is
   * checked (the admin port, the throttle of failed authentication).
   */
  readonly beforeCredentials?: (fastify: FastifyInstance) => void;
}

export function configureHttpServer(app: NestFastifyApplication, config: AppConfig, options: HttpServerOptions = {}): Promise<void> {
  const fastify = fastifyOf(app);
  // Fastify parses application/json and text/plain by default; only the spec's formats are taken.
  fastify.removeAllContentTypeParsers();
  // Every reader decodes a gzip body (`content-coding.ts`); its limits count the decoded bytes.
  fastify.addContentTypeParser([...MEDIA_TYPES_OF.json], { parseAs: 'buffer' }, jsonParser(fastify, config.bodyLimitBytes));
  fastify.addContentTypeParser([...MEDIA_TYPES_OF.ndjson, ...MEDIA_TYPES_OF.csv], (request, payload, done) => {
    if (Number(request.headers['content-length']) > config.bodyLimitBytes) {
      done(payloadTooLarge('request body', config.bodyLimitBytes), undefined);
      return;
    }
    // Handed over unread: bulk bodies are streamed record by record, never buffered whole.
    handOver(done, () => limitBytes(decodedStream(request, payload), config.bodyLimitBytes, 'request body'));
  });
  // Handed over unread too: an upload endpoint reads its parts as they arrive (see `uploaded-file.ts`),
  // within the file limit; endpoints that take no file never read it.
  fastify.addContentTypeParser([...MEDIA_TYPES_OF.file], (request, payload, done) => handOver(done, () => decodedStream(request, payload)));
  fastify.addContentTypeParser('*', (request, _payload, done) => {
    // An empty body with any type is no body (e.g. publish sent by a client that always sets one).
    if (request.headers['content-length'] === '0') {
      done(null, undefined);
      return;
    }
    const sent = describeSentMediaType(mediaTypeOf(request.headers['content-type']));
    done(new DomainError('unsupported_media_type', unsupportedMediaTypeDetail(sent)), undefined);
  });
  // The first `onRequest` hook of every host: a path two parsers could read differently never gets further.
  fastify.addHook('onRequest', refuseAmbiguousPath);
  recordPublicBaseUrls(fastify, config);
  options.beforeCredentials?.(fastify);
  installTokenRoutes(fastify, config);
  const routes = new RouteTable();
  fastify.addHook('onRoute', (route) => routes.add(route.method, route.url));
  // After every `onRequest` hook (authentication first), before any body is read.
  fastify.addHook('preParsing', (request, _reply, payload, done) => done(routingProblem(request, routes), payload));
  fastify.addHook('onSend', stampResponse);
  return Promise.resolve();
}

/**
 * @nestjs/platform-fastify types its instance with its own generic parameters; at run time it is the
 * same Fastify 5 API, so the instance is viewed through the top-level `fastify` types.
 */
function fastifyOf(app: NestFastifyApplication): FastifyInstance {
  const instance: unknown = app.getHttpAdapter().getInstance();
  return instance as FastifyInstance;
}

/** Hands a parser's body over, or the refusal (a 415 of its coding) its making threw. */
function handOver(done: (error: Error | null, body?: unknown) => void, body: () => Readable): void {
  let made: Readable;
  try {
    made = body();
  } catch (error) {
    done(error as Error, undefined);
    return;
  }
  done(null, made);
}

/** Decodes JSON bodies; refuses bytes that are not UTF-8 instead of reading them as U+FFFD. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Keeps Fastify's own JSON parsing (and its prototype-poisoning protection) but reports why a body
 * is not JSON, and treats an empty body as no body rather than as malformed JSON. A body is also
 * refused, with 400 naming the limit or the path, when it is not UTF-8, nests deeper than 64 levels
 * (checked on the text, before parsing), or holds what no store can keep: NUL, a lone surrogate or
 * a number beyond a double (see `json-checks.ts`). One place for every JSON endpoint, so no handler
 * ever sees such a value; the checks cost one scan and one walk, small for the usual small body.
 */
function jsonParser(fastify: FastifyInstance, bodyLimitBytes: number) {
  const parse = fastify.getDefaultJsonParser('error', 'error');
  return (request: FastifyRequest, sent: Buffer, done: (error: Error | null, value?: unknown) => void): void => {
    decodedBytes(request, sent, bodyLimitBytes).then(
      (bytes) => parseJson(parse, request, bytes, done),
      (error: Error) => done(error),
    );
  };
}

function parseJson(
  parse: ReturnType<FastifyInstance['getDefaultJsonParser']>,
  request: FastifyRequest,
  bytes: Buffer,
  done: (error: Error | null, value?: unknown) => void,
): void {
  let body: string;
  try {
    body = STRICT_UTF8.decode(bytes);
  } catch {
    done(new DomainError('invalid_request', 'body: is not UTF-8 text (an invalid byte sequence)'));
    return;
  }
  if (body.trim().length === 0) {
    done(null, undefined);
    return;
  }
  if (nestsTooDeep(body)) {
    done(new DomainError('invalid_request', `body: ${NESTED_TOO_DEEP}`));
    return;
  }
  void parse(request, body, (error: Error | null, value?: unknown) => {
    if (error) {
      done(new DomainError('invalid_request', `body: is not valid JSON (${jsonSyntaxProblem(body)})`));
      return;
    }
    const problem = jsonValueProblem(value);
    if (problem) done(new DomainError('invalid_request', `${problem.path === '' ? 'body' : problem.path}: ${problem.reason}`));
    else done(null, value);
  });
}

function jsonSyntaxProblem(text: string): string {
  try {
    JSON.parse(text);
    return 'a "__proto__" or "constructor.prototype" key is not allowed';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * A 400 for a path spelled so that the gateway's router and the URL parser of the proxy behind it
 * could read it as two paths (see `readPath`), before authentication and routing act on it: the path
 * a key was checked against is then the only path a request can reach, in every shape.
 */
function refuseAmbiguousPath(request: FastifyRequest, _reply: FastifyReply, done: (error?: DomainError) => void): void {
  const { problem } = readPath(request.url.split('?', 1)[0]);
  done(problem === undefined ? undefined : new DomainError('invalid_request', problem));
}

/**
 * What is wrong with a request's path before its body is read, or null. A path that the router found
 * under other methods only is a 405 with `Allow`; one it did not find at all is a 404 in the router's
 * own words, before Fastify would read (and buffer) a body no handler will read; a path parameter with
 * NUL is a 400 naming it (PostgreSQL text cannot hold NUL; percent-decoding cannot produce a lone
 * surrogate, since such bytes are not UTF-8 and the router refuses them). The wildcard of a proxy route
 * is left to the service it goes to, which names the parameter.
 */
function routingProblem(request: FastifyRequest, routes: RouteTable): DomainError | null {
  if (request.is404) {
    const allowed = routes.allowedMethods(request.url.split('?', 1)[0]);
    if (allowed.length === 0) return new DomainError('not_found', `Cannot ${request.method} ${request.url}`);
    return new DomainError('method_not_allowed', `${request.method} is not allowed on this path; it takes ${allowed.join(', ')}`, {
      allowedMethods: allowed,
    });
  }
  const params = request.params;
  if (typeof params !== 'object' || params === null) return null;
  for (const [name, value] of Object.entries(params)) {
    if (name === '*' || typeof value !== 'string') continue;
    const problem = textProblem(value);
    if (problem !== undefined) return new DomainError('invalid_request', `${name}: ${problem}`);
  }
  return null;
}

/**
 * Every response, problems included, says which API version answered and which request it was, and
 * carries `SAFE_ANSWER_HEADERS`. Each header is set, never added: a service's answer that the gateway
 * passes on carries each of them once.
 */
function stampResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: null, payload: unknown) => void,
): void {
  stampHeaders(request, reply);
  done(null, payload);
}

function stampHeaders(request: FastifyRequest, reply: FastifyReply): void {
  void reply
    .header(API_VERSION_HEADER, PUBLIC_API_VERSION)
    .header(REQUEST_ID_HEADER, request.id)
    .header('X-Content-Type-Options', SAFE_ANSWER_HEADERS['X-Content-Type-Options']);
  // An answer that chose its own caching (the API reference) keeps it.
  if (!reply.hasHeader('Cache-Control')) void reply.header('Cache-Control', NO_STORE);
}
