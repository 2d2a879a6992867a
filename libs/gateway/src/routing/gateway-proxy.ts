import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { Injectable } from '@nestjs/common';
import replyFrom from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { buildConnector } from 'undici';
import { AppConfig, type ServiceName } from '@guidepost/platform-config';
import { DomainError } from '@guidepost/platform-errors';
import {
  AccountStatements,
  canonicalPathOf,
  DEPENDENCY_RETRY_AFTER_SECONDS,
  readPath,
  requestBaseUrl,
  settleUnreadBody,
} from '@guidepost/platform-http';
import { MetricsRegistry } from '@guidepost/platform-observability';
import { authenticatedAccountOf } from '../api/authenticated-account';
import { headersToClient, headersToService } from './forwarded-headers';
import { ROUTE_OWNERSHIP } from './route-ownership';

/**
 * How long the gateway waits on a service: to connect (each attempt, see `connectAgain`), then
 * `GUIDEPOST_GATEWAY_UPSTREAM_TIMEOUT_MS` for the answer's headers and again for each further piece
 * of its body. Both are silences, never totals: an upload or a long answer takes as long as it takes
 * while bytes keep moving. A service answers an upload once it has stored the last byte, so the wait
 * for its headers starts only after the body was sent. A frozen service costs a client that long,
 * then a 504, never a hung request.
 */
function upstreamOptions(
  silenceMs: number,
  onRetry: ConnectRetryListener,
): { connect: buildConnector.connector; headersTimeout: number; bodyTimeout: number } {
  return { connect: connectAgain(buildConnector({ timeout: 5_000 }), onRetry), headersTimeout: silenceMs, bodyTimeout: silenceMs };
}

/** The waits before each new attempt at a connection that was refused: 1.5 s in all. */
const CONNECT_RETRY_DELAYS_MS = [100, 200, 400, 800];
/** Quick refusals of a connection attempt (a connection that times out, after 5 s, is not tried again). */
const CONNECT_FAILURES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Told of each new attempt, with the origin (`host:port`) that refused the last one. */
type ConnectRetryListener = (origin: string) => void;

/**
 * Tries a refused connection again, before undici has taken the request in hand: nothing reached the
 * service, and the request and its body are untouched, so this is safe for any method. During a rolling
 * update the cluster's routing can lag a moment behind the endpoints and lead a new connection to a pod
 * that has just stopped listening; a later attempt reaches the pod that replaced it. A service that is
 * really down costs the client these waits before its 503. Retrying once the request was sent would
 * not be safe (the service may have acted on it), so nothing else is tried again.
 */
function connectAgain(connect: buildConnector.connector, onRetry: ConnectRetryListener): buildConnector.connector {
  return (options, callback) => {
    const attempt = (failures: number): void =>
      connect(options, (...result) => {
        const [error] = result;
        const wait = CONNECT_RETRY_DELAYS_MS[failures];
        if (error === null || !connectFailed(error) || wait === undefined) return callback(...result);
        onRetry(options.host ?? `${options.hostname}:${options.port}`);
        setTimeout(() => attempt(failures + 1), wait);
      });
    attempt(0);
  };
}

type ServiceUrls = Readonly<Record<ServiceName, string>>;

/**
 * Routes each public route to the service that owns it (`ROUTE_OWNERSHIP`) in the distributed shape.
 * The proxy routes live in their own Fastify context whose one content-type parser hands the body on
 * unread, so nothing is parsed or buffered (uploads reach 200 MB) and answers stream back as they come.
 * The gateway's `onRequest` hooks (authentication, throttling, the account check) run first, as for
 * every route, and the headers they set reach the client. A service that cannot be reached is a 503
 * naming it. The standalone host serves the routes itself and never installs this.
 */
@Injectable()
export class GatewayProxy {
  constructor(
    private readonly config: AppConfig,
    private readonly metrics: MetricsRegistry,
  ) {}

  /** Call on the gateway's Fastify instance before `app.init()`; throws when a service URL or the internal token is missing. */
  install(fastify: FastifyInstance): void {
    const serviceUrls = serviceUrlsOf(this.config);
    const internalToken = internalTokenOf(this.config);
    const statements = new AccountStatements(internalToken);
    const countRetry = connectRetryCounter(this.metrics, serviceUrls);
    void fastify.register(async (proxy) => {
      proxy.removeAllContentTypeParsers();
      proxy.addContentTypeParser('*', (_request, body, done) => done(null, detachedBody(body)));
      // No retries of requests: a method's safety is the service's business, and its answers pass through
      // as they are. Only a connection that was refused is tried again (`connectAgain`).
      const undici = upstreamOptions(this.config.gatewayUpstreamTimeoutMs, countRetry);
      await proxy.register(replyFrom, { undici, retryMethods: [], disableCache: true, disableRequestLogging: true });
      for (const { prefix, service } of ROUTE_OWNERSHIP) {
        const forward = (request: FastifyRequest, reply: FastifyReply): FastifyReply =>
          forwardTo(
            { service, url: serviceUrls[service], timeoutMs: this.config.gatewayUpstreamTimeoutMs },
            { internalToken, statements },
            request,
            reply,
          );
        proxy.all(prefix, forward);
        proxy.all(`${prefix}/*`, forward);
      }
    });
  }
}

interface Upstream {
  readonly service: ServiceName;
  readonly url: string;
  readonly timeoutMs: number;
}

/** What the gateway presents to a service: the internal token, and a statement of the account it authenticated. */
interface Credentials {
  readonly internalToken: string;
  readonly statements: AccountStatements;
}

function forwardTo(upstream: Upstream, credentials: Credentials, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = forwardedPath(request);
  const accountId = authenticatedAccountOf(request);
  const forwarded = {
    id: request.id,
    peerAddress: request.socket.remoteAddress,
    protocol: request.protocol,
    host: request.host,
    publicBaseUrl: requestBaseUrl(request),
    hasBody: request.body !== undefined,
    keepsAuthorization: path.startsWith('/admin/'),
    accountStatement: accountId === undefined ? undefined : credentials.statements.state(accountId),
  };
  try {
    // reply-from appends the query string exactly as the client sent it.
    return reply.from(`${upstream.url}${path}`, {
      rewriteRequestHeaders: (_request, headers) => headersToService(headers, forwarded, credentials.internalToken),
      rewriteHeaders: (headers) => headersToClient(headers),
      // A service answers before the end of a body only to refuse it (a 413 past its limit): undici then
      // stops sending, and reply-from answers `Connection: close`, cutting off a client still uploading
      // (EPIPE) before it reads the answer. The rest of a moderate body is drained instead.
      onResponse: (_request, _reply, answer) => {
        settleUnreadBody(request.raw, reply);
        void reply.send(answer.stream);
      },
      onError: (failed, { error }) => void failed.send(upstreamFailure(upstream, error)),
    });
  } catch (error) {
    // reply-from refuses a path whose decoded form holds '/..' (an id with '/..' in it, say) rather than let it climb out of the service's base URL.
    if (statusCodeOf(error) !== 400) throw error;
    throw new DomainError('invalid_request', `path: a segment holds '/..' once decoded, which cannot be forwarded`, { cause: error });
  }
}

/**
 * The path a service receives: rebuilt from the segments the gateway's router matched and the gateway
 * authorized, each percent-encoded in one canonical way, never the client's spelling. Every host has
 * already refused a spelling that parsers could read differently (`readPath`); the check that each
 * parameter of the matched route is the segment it came from keeps that promise should a router
 * and `readPath` ever part ways.
 */
function forwardedPath(request: FastifyRequest): string {
  const reading = readPath(request.url.split('?', 1)[0]);
  if (reading.problem !== undefined) throw new DomainError('invalid_request', reading.problem);
  const params = request.params as Record<string, unknown>;
  const pattern = (request.routeOptions.url ?? '').split('/').slice(1);
  for (const [index, part] of pattern.entries()) {
    if (part.startsWith(':') && params[part.slice(1)] !== reading.segments[index]) {
      throw new DomainError('invalid_request', `path: segment ${index + 1} is read in two ways; percent-encode its special characters`);
    }
  }
  return canonicalPathOf(reading.segments);
}

/** A service that did not answer in time is a 504; one that cannot be reached (or broke off) a 503. */
function upstreamFailure(upstream: Upstream, error: unknown): DomainError {
  if (statusCodeOf(error) === 504) {
    const detail = `the ${upstream.service} service did not answer within ${upstream.timeoutMs / 1000} s`;
    return new DomainError('upstream_timeout', detail, { cause: error });
  }
  return new DomainError('unavailable', `the ${upstream.service} service is unavailable`, {
    cause: error,
    retryAfterSeconds: DEPENDENCY_RETRY_AFTER_SECONDS,
  });
}

/**
 * `guidepost_gateway_upstream_connect_retries_total{service}`: connections a service refused and the
 * gateway tried again. A few during a rolling update are the routing catching up; a steady rate means
 * a service that is down or a route that points nowhere. Every service starts at 0, so a panel shows a
 * flat line rather than no data.
 */
function connectRetryCounter(metrics: MetricsRegistry, serviceUrls: ServiceUrls): ConnectRetryListener {
  const counter = metrics.counter({
    name: 'guidepost_gateway_upstream_connect_retries_total',
    help: 'Connections to a service that were refused and tried again by the gateway',
    labelNames: ['service'],
  });
  // Services behind one origin (one ingress, say) share its count.
  const servicesByOrigin = new Map<string, string>();
  for (const [service, url] of Object.entries(serviceUrls)) {
    const origin = new URL(url).host;
    const shared = servicesByOrigin.get(origin);
    servicesByOrigin.set(origin, shared === undefined ? service : `${shared},${service}`);
  }
  for (const service of servicesByOrigin.values()) counter.inc({ service }, 0);
  return (origin) => counter.inc({ service: servicesByOrigin.get(origin) ?? origin });
}

function connectFailed(error: Error): boolean {
  return 'code' in error && CONNECT_FAILURES.has(error.code as string);
}

function statusCodeOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'statusCode' in error ? error.statusCode : undefined;
}

/**
 * The request body as a stream of its own. undici destroys the body it sends when the service fails, and
 * destroying the request itself would cut the client's connection before it reads the 503; this stream
 * takes the blow instead, leaving the request for the error handler (or, when the service answered
 * before the end of the body, `forwardTo`) to drain. A client that goes away
 * before the end of its body fails the stream, so the service is not left waiting for the rest.
 */
function detachedBody(request: IncomingMessage): PassThrough {
  const body = new PassThrough();
  request.pipe(body);
  request.once('close', () => {
    if (!request.complete) body.destroy(new Error('the client closed the connection before the end of its body'));
  });
  return body;
}

function serviceUrlsOf(config: AppConfig): ServiceUrls {
  const owners = [...new Set(ROUTE_OWNERSHIP.map((route) => route.service))];
  const missing = owners.filter((service) => config.serviceUrls[service] === undefined);
  if (missing.length > 0) {
    const settings = missing.map((service) => `GUIDEPOST_${service.toUpperCase()}_SERVICE_URL`).join(', ');
    throw new Error(`The gateway of the distributed shape routes requests to every service: set ${settings}`);
  }
  return config.serviceUrls as ServiceUrls;
}

function internalTokenOf(config: AppConfig): string {
  if (config.internalToken === undefined) {
    throw new Error('The gateway of the distributed shape presents GUIDEPOST_INTERNAL_TOKEN to the services: set it');
  }
  return config.internalToken;
}
