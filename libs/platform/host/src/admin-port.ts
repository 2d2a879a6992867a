import type { Server } from 'node:http';
import { type AddressInfo, createServer, type Server as NetServer, type Socket } from 'node:net';
import { Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '@guidepost/platform-errors';

/** What only the admin port answers: the admin API (`/admin/...`) and the metrics. */
function isAdminOnly(path: string): boolean {
  return path === '/metrics' || path === '/admin' || path.startsWith('/admin/');
}

/** The orchestrator's probes, answered on both ports. */
const PROBES = new Set(['/health/live', '/health/ready']);

/**
 * `GUIDEPOST_ADMIN_PORT`: the admin API and `/metrics` on a port of their own, so that a network
 * rule (a Kubernetes Service, Ingress or NetworkPolicy, a firewall) can keep them off the public
 * network while the public API stays open; a path-based rule cannot do that for every way into the
 * process. The port is a second listener of the same HTTP server (each connection it accepts is
 * handed to that server), so timeouts, limits, hooks and the graceful stop are the same on both.
 *
 * A Fastify `onRequest` hook, before authentication, judges each request by the route the router
 * matched (so no spelling of a path passes for another) and by the port its connection came to: the
 * HTTP port answers an admin route or `/metrics` with the 404 of an unknown route, without a word
 * about the other port; the admin port answers nothing but the admin API, the metrics and the probes.
 */
export class AdminPort {
  private readonly logger = new Logger('AdminPort');
  private listener: NetServer | undefined;

  constructor(private readonly port: number) {}

  /** Call on the Fastify instance before `app.init()`, after the host's first checks. */
  install(fastify: FastifyInstance): void {
    fastify.addHook('onRequest', (request, _reply, done) => done(this.misdirected(request)));
    // The admin port stops taking connections with the HTTP port (Fastify's close, see `shutDown`).
    fastify.addHook('preClose', (done) => {
      this.listener?.close();
      done();
    });
  }

  /** Opens the port on `host`; its connections are served by `server`, the application's HTTP server. */
  listen(host: string, server: Server): Promise<void> {
    const listener = createServer({ noDelay: true }, (socket: Socket) => server.emit('connection', socket));
    this.listener = listener;
    return new Promise((resolve, reject) => {
      listener.once('error', reject);
      listener.listen({ host, port: this.port }, () => {
        listener.off('error', reject);
        listener.on('error', (error) => this.logger.warn(`the admin port failed to take a connection: ${error.message}`));
        resolve();
      });
    });
  }

  /** Where the admin port listens (once `listen` has resolved). */
  address(): AddressInfo | undefined {
    const address = this.listener?.address();
    return address !== null && typeof address === 'object' ? address : undefined;
  }

  private misdirected(request: FastifyRequest): DomainError | undefined {
    // An unmatched path is judged as spelled, so that the 405 of a method the route lacks (with its
    // `Allow`) does not tell the HTTP port's callers that an admin route is there.
    const path = request.is404 ? request.url.split('?', 1)[0] : (request.routeOptions.url ?? '');
    const onAdminPort = this.listener !== undefined && request.raw.socket.localPort === this.address()?.port;
    const served = onAdminPort ? isAdminOnly(path) || PROBES.has(path) || request.is404 : !isAdminOnly(path);
    // The wording of the router's own 404.
    return served ? undefined : new DomainError('not_found', `Cannot ${request.method} ${request.url}`);
  }
}
