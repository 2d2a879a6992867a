import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '@guidepost/platform-config';
import { inboundBodyOf } from '../body/inbound-body.interceptor';
import { type BodyReader, bodyReadingOf, jsonValueOf } from '../body/valid-body.decorator';
import { csvRendererFor } from '../rendering/csv-response.interceptor';
import type { CsvRenderingOptions } from '../rendering/csv-rendering.decorator';
import { checkedIdentifier } from '../validation/identifier';

/** Where a direct route is served: a method and a Fastify path pattern. */
export interface DirectRoutePath {
  readonly method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** e.g. `/v2/accounts/:account_id/users/:user_id/events` */
  readonly url: string;
}

/**
 * A JSON endpoint that Fastify serves itself instead of through Nest's controller pipeline (router,
 * interceptors, pipes, rxjs), for the routes whose cost per request matters (track). It is answered
 * exactly as the controller route it stands for would be: Fastify's hooks (authentication, rate
 * limit, idempotency, request id, logging, metrics, 405) run for it alike, since they are Fastify's;
 * then, in Nest's order, the body is taken as `@ValidBody` takes it (415 for another type,
 * `InboundBodyInterceptor`), `Vary: Accept` is set and `Accept: text/csv` honoured
 * (`CsvResponseInterceptor`), the body is read, the path ids are checked as `IdentifierParam` checks
 * them, and errors reach the same Problem Details filter (Nest routes Fastify's error handler
 * through it). `direct-route.spec.ts` holds both kinds of route to the same answers.
 */
export interface DirectRoute<Body> extends DirectRoutePath {
  /** The status of a success (`@HttpCode`). */
  readonly status: number;
  /** Path parameters checked as ids (`checkedIdentifier`), in this order, once the body is read. */
  readonly ids: readonly string[];
  /** What the JSON body must be (`@ValidBody`). */
  readonly body: BodyReader;
  /** How the result renders under `Accept: text/csv` (`@CsvRendering`). */
  readonly csv?: CsvRenderingOptions;
  readonly handle: (params: Readonly<Record<string, string>>, body: Body) => Promise<unknown>;
}

const ACCEPTS_JSON = ['json'] as const;

/** Registers the route; call before the Fastify instance is ready (e.g. in a controller's `onModuleInit`). */
export function serveDirectRoute<Body>(fastify: FastifyInstance, config: AppConfig, route: DirectRoute<Body>): void {
  const read = bodyReadingOf(route.body);
  fastify.route({
    method: route.method,
    url: route.url,
    handler: async (request, reply) => {
      const body = await inboundBodyOf(request, ACCEPTS_JSON, config);
      const render = csvRendererFor(request, reply);
      // Nest's order: a parameter decorator's value (`@ValidBody`) is read before any pipe runs (`IdentifierParam`).
      const value = read(jsonValueOf(body)) as Body;
      const params = request.params as Record<string, string>;
      for (const name of route.ids) checkedIdentifier(name, params[name]);
      const result = await route.handle(params, value);
      void reply.code(route.status);
      return render === undefined ? result : render(result, route.csv);
    },
  });
}

/** Class decorator: the routes a controller serves directly, for whatever lists a service's routes. */
export function ServesDirectly(...routes: DirectRoutePath[]): ClassDecorator {
  return (target) => Reflect.defineMetadata(DIRECT_ROUTES, routes, target);
}

/** The routes a controller declares with `@ServesDirectly`. */
export function directRoutesOf(controller: object): readonly DirectRoutePath[] {
  return (Reflect.getMetadata(DIRECT_ROUTES, controller) as DirectRoutePath[] | undefined) ?? [];
}

const DIRECT_ROUTES = 'guidepost:directRoutes';
