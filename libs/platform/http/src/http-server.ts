import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import fastifyMultipart from '@fastify/multipart';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyHttpOptions, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_VERSION_HEADER, PUBLIC_API_VERSION } from '@guidepost/contracts-http';
import type { AppConfig } from '@guidepost/platform-config';
import { DomainError } from './errors/domain-error';
import { payloadTooLarge } from './errors/size-limit';
import { limitBytes } from './body/byte-limit';
import { describeSentMediaType, MEDIA_TYPES_OF, mediaTypeOf, unsupportedMediaTypeDetail } from './body/media-types';

export const REQUEST_ID_HEADER = 'x-request-id';

/** A caller's request id is kept when it is a sane token; anything else gets a fresh one. */
const ACCEPTABLE_REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Options for `new FastifyAdapter(...)`. Fastify's logger stays off (observability logs requests),
 * and the request id is computed here rather than through `requestIdHeader`, which would take any
 * header value as it is into every log line and response.
 */
export function fastifyAdapterOptions(config: AppConfig): FastifyHttpOptions<Server> {
  return {
    bodyLimit: config.bodyLimitBytes,
    trustProxy: true,
    logger: false,
    requestIdHeader: false,
    genReqId: requestIdOf,
  };
}

function requestIdOf(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && ACCEPTABLE_REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * Body intake and response identity for a Nest application on Fastify. Call before `app.init()`,
 * on an app created with `{ bodyParser: false }` (so Nest adds no parsers of its own).
 */
export async function configureHttpServer(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  const fastify = fastifyOf(app);
  // Fastify parses application/json and text/plain by default; only the spec's formats are taken.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser([...MEDIA_TYPES_OF.json], { parseAs: 'string' }, jsonParser(fastify));
  fastify.addContentTypeParser([...MEDIA_TYPES_OF.ndjson, ...MEDIA_TYPES_OF.csv], (request, payload, done) => {
    if (Number(request.headers['content-length']) > config.bodyLimitBytes) {
      done(payloadTooLarge('request body', config.bodyLimitBytes), undefined);
      return;
    }
    // Handed over unread: bulk bodies are streamed record by record, never buffered whole.
    done(null, limitBytes(payload, config.bodyLimitBytes, 'request body'));
  });
  fastify.addContentTypeParser('*', (request, _payload, done) => {
    // An empty body with any type is no body (e.g. publish sent by a client that always sets one).
    if (request.headers['content-length'] === '0') {
      done(null, undefined);
      return;
    }
    const sent = describeSentMediaType(mediaTypeOf(request.headers['content-type']));
    done(new DomainError('unsupported_media_type', unsupportedMediaTypeDetail(sent)), undefined);
  });
  // Registers the multipart/form-data parser. Its busboy file limit sits one byte above ours so that
  // our own limit (which fails the stream with 413) trips first instead of a silently truncated file.
  await fastify.register(fastifyMultipart, { limits: { fileSize: config.fileLimitBytes + 1, parts: 100 } });
  fastify.addHook('onRequest', treatMultipartMixedAsFormData);
  fastify.addHook('onSend', stampResponse);
}

/**
 * @nestjs/platform-fastify pins its own copy of fastify, whose type declarations miss the
 * augmentations of plugins such as @fastify/multipart (which extend the top-level `fastify` types).
 * At run time it is the same Fastify 5 API, so the instance is viewed through the top-level types.
 */
function fastifyOf(app: NestFastifyApplication): FastifyInstance {
  const instance: unknown = app.getHttpAdapter().getInstance();
  return instance as FastifyInstance;
}

/**
 * Keeps Fastify's own JSON parsing (and its prototype-poisoning protection) but reports why a body
 * is not JSON, and treats an empty body as no body rather than as malformed JSON.
 */
function jsonParser(fastify: FastifyInstance) {
  const parse = fastify.getDefaultJsonParser('error', 'error');
  return (request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void): void => {
    if (body.trim().length === 0) {
      done(null, undefined);
      return;
    }
    void parse(request, body, (error: Error | null, value?: unknown) => {
      if (error) done(new DomainError('invalid_request', `body: is not valid JSON (${jsonSyntaxProblem(body)})`));
      else done(null, value);
    });
  };
}

function jsonSyntaxProblem(text: string): string {
  try {
    JSON.parse(text);
    return 'a "__proto__" or "constructor.prototype" key is not allowed';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const MULTIPART_MIXED = /^multipart\/mixed/i;

/**
 * Clients upload with `curl -H 'Content-Type: multipart/mixed' -F file=@data.csv`: form-data parts
 * (each with `Content-Disposition: form-data; name="file"`) under a multipart/mixed type. Neither
 * @fastify/multipart (which registers multipart/form-data only) nor busboy (whose parser matches
 * `multipart/form-data` only) reads multipart/mixed, and the framing is identical, so the type is
 * renamed before parsing, keeping the boundary parameter.
 */
function treatMultipartMixedAsFormData(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const contentType = request.raw.headers['content-type'];
  if (contentType !== undefined && MULTIPART_MIXED.test(contentType)) {
    request.raw.headers['content-type'] = contentType.replace(MULTIPART_MIXED, 'multipart/form-data');
  }
  done();
}

/** Every response, problems included, says which API version answered and which request it was. */
function stampResponse(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  void reply.header(API_VERSION_HEADER, PUBLIC_API_VERSION).header(REQUEST_ID_HEADER, request.id);
  done(null, payload);
}
