import type { Server } from 'node:http';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { ReadinessProbe } from '@guidepost/platform-observability';
import { settlesWithin } from '@guidepost/platform-scheduling';

/**
 * The share of the grace period that in-flight requests get to finish; the rest is for the workers,
 * the bus and the databases (and, standalone, the embedded PostgreSQL) to stop.
 */
export const REQUESTS_SHARE_OF_GRACE = 0.6;
/** How often connections that went idle while draining are closed (a keep-alive connection would stay open otherwise). */
const IDLE_SWEEP_MS = 100;
/**
 * How long, at most, the listener stays open once a stop has begun (at most a quarter of the requests'
 * budget): a client sending on a kept-alive connection meanwhile is answered with `Connection: close`
 * and moves on. Closing that connection while it is idle instead races the client's next request,
 * which then fails with the socket closed under it: behind a Service in a rolling update, the pod is
 * already out of the endpoints, so those clients are the only traffic left.
 */
const CLOSE_NOTICE_MS = 500;

/**
 * Readiness while the process stops: `GET /health/ready` answers 503 (`not ready: lifecycle (shutting down)`)
 * from the moment a stop begins, so a load balancer stops sending, and every response sent from then
 * on says `Connection: close`, so no client keeps a connection to a process that is going away.
 */
export class ShutdownReadiness extends ReadinessProbe {
  readonly name = 'lifecycle';
  private begunAt: number | undefined;

  get begun(): boolean {
    return this.begunAt !== undefined;
  }

  begin(): void {
    this.begunAt ??= Date.now();
  }

  check(): Promise<void> {
    if (this.begunAt === undefined) return Promise.resolve();
    return Promise.reject(new Error('shutting down'));
  }

  /** Adds `Connection: close` to every response once the stop has begun (HTTP/1.1 closes the connection after it). */
  install(fastify: FastifyInstance): void {
    fastify.addHook('onSend', (_request, reply, payload, done) => {
      if (this.begun) void reply.header('connection', 'close');
      done(null, payload);
    });
  }
}

export interface ShutdownPlan {
  readonly app: NestFastifyApplication;
  /** The whole stop must fit in this (ms); see `REQUESTS_SHARE_OF_GRACE`. */
  readonly graceMs: number;
  /** What the host owns beyond the application, stopped last (the embedded PostgreSQL). */
  readonly afterApplication?: () => Promise<void>;
}

/**
 * An orderly stop, in the order that loses nothing:
 * 1. readiness answers 503, and responses say `Connection: close`;
 * 2. after `CLOSE_NOTICE_MS`, the listener closes (new connections are refused), idle keep-alive
 *    connections are closed, and in-flight requests finish and are answered normally, for at most
 *    `REQUESTS_SHARE_OF_GRACE` of the grace period, after which the connections still open are cut;
 * 3. the Nest application closes: the services' `beforeApplicationShutdown` (the track group commit
 *    drains, the import worker stops at its next batch, the event sink writes what it gathered), then
 *    the bus's consumers (Kafka: they finish the message in hand, commit and leave their groups), then
 *    in `onApplicationShutdown` the outbox relays (after the batch in hand), then the Kafka producer,
 *    the event store's client and the database pools;
 * 4. `afterApplication` (the embedded PostgreSQL, once nothing uses it).
 * Nest's own `close()` would close the HTTP server only after step 3 had begun; hence this order.
 */
export async function shutDown(plan: ShutdownPlan, reason: string): Promise<void> {
  const logger = new Logger('Shutdown');
  const started = Date.now();
  const requestsBudgetMs = Math.floor(plan.graceMs * REQUESTS_SHARE_OF_GRACE);
  plan.app.get(ShutdownReadiness).begin();
  logger.log(
    `${reason}: stopping within ${plan.graceMs} ms; no new connections, finishing the requests in flight (at most ${requestsBudgetMs} ms)`,
  );
  const cut = await drainHttp(plan.app, requestsBudgetMs);
  if (cut > 0) logger.warn(`${cut} connection(s) with requests still running after ${requestsBudgetMs} ms were closed`);
  logger.log(`requests done after ${Date.now() - started} ms; stopping workers, consumers and relays`);
  await plan.app.close();
  if (plan.afterApplication) await plan.afterApplication();
  logger.log(`stopped in ${Date.now() - started} ms`);
}

/**
 * Closes the listener and waits for the open connections to end (each after its request is
 * answered); after `budgetMs`, closes the ones still open. Returns how many had to be cut.
 */
async function drainHttp(app: NestFastifyApplication, budgetMs: number): Promise<number> {
  const server: Server = app.getHttpServer();
  const noticeMs = Math.min(CLOSE_NOTICE_MS, Math.floor(budgetMs / 4));
  await new Promise((done) => setTimeout(done, noticeMs));
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  try {
    // Fastify's close stops listening, closes idle connections, lets requests in flight finish (with
    // `return503OnClosing: false`, even those arriving on a connection already open), then runs its
    // plugins' onClose hooks; Nest's close later finds it closed.
    const closed = app.getHttpAdapter().close() as Promise<void>;
    if (await settlesWithin(closed, budgetMs - noticeMs)) return 0;
    const open = await new Promise<number>((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));
    server.closeAllConnections();
    await closed;
    return open;
  } finally {
    clearInterval(sweep);
  }
}
