import type { DynamicModule, Type } from '@nestjs/common';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common/enums/request-method.enum';
import { MetadataScanner } from '@nestjs/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { ContentModule } from '@guidepost/content';
import { GatewayProxy, ROUTE_OWNERSHIP } from '@guidepost/gateway';
import { IngestionModule } from '@guidepost/ingestion';
import { loadConfig, type ServiceName } from '@guidepost/platform-config';
import { directRoutesOf, recordPublicBaseUrls } from '@guidepost/platform-http';
import { MetricsRegistry } from '@guidepost/platform-observability';
import { ProfileModule } from '@guidepost/profile';
import { SegmentModule } from '@guidepost/segment';
import { StandaloneModule } from './standalone.module';

const SERVICE_MODULES = new Map<unknown, ServiceName>([
  [ContentModule, 'content'],
  [SegmentModule, 'segment'],
  [ProfileModule, 'profile'],
  [IngestionModule, 'ingestion'],
]);
const SERVICES: readonly ServiceName[] = [...SERVICE_MODULES.values()];

interface ControllerRoute {
  readonly method: string;
  readonly path: string;
  /** The service whose module declares the controller; undefined for the gateway and the platform. */
  readonly servedBy: ServiceName | undefined;
}

/**
 * Every route of every controller of the standalone shape (which carries them all), read from Nest's
 * route metadata and `@ServesDirectly`, with the service module that declares it.
 */
function controllerRoutes(): ControllerRoute[] {
  const routes: ControllerRoute[] = [];
  const visit = (imported: Type | DynamicModule, servedBy: ServiceName | undefined): void => {
    const module = 'module' in imported ? imported.module : imported;
    const owner = SERVICE_MODULES.get(module) ?? servedBy;
    const dynamic: Partial<DynamicModule> = 'module' in imported ? imported : {};
    const controllers = [...metadataList<Type>(MODULE_METADATA.CONTROLLERS, module), ...(dynamic.controllers ?? [])];
    for (const controller of controllers) {
      routes.push(...routesOf(controller, owner));
      // Routes a controller has Fastify serve directly (`serveDirectRoute`) are its routes too.
      routes.push(...directRoutesOf(controller).map(({ method, url }) => ({ method, path: url, servedBy: owner })));
    }
    const imports = [
      ...metadataList<Type | DynamicModule>(MODULE_METADATA.IMPORTS, module),
      ...((dynamic.imports ?? []) as (Type | DynamicModule)[]),
    ];
    for (const child of imports) visit(child, owner);
  };
  visit(StandaloneModule.forRoot(loadConfig({})), undefined);
  return routes;
}

function metadataList<T>(key: string, target: object): T[] {
  return (Reflect.getMetadata(key, target) as T[] | undefined) ?? [];
}

function routesOf(controller: Type, servedBy: ServiceName | undefined): ControllerRoute[] {
  const prototype = controller.prototype as Record<string, object>;
  const base = Reflect.getMetadata(PATH_METADATA, controller) as string;
  return new MetadataScanner()
    .getAllMethodNames(prototype)
    .map((name) => prototype[name])
    .filter((handler) => Reflect.getMetadata(METHOD_METADATA, handler) !== undefined)
    .map((handler) => ({
      method: RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod],
      path: `/${[base, Reflect.getMetadata(PATH_METADATA, handler) as string].join('/').split('/').filter(Boolean).join('/')}`,
      servedBy,
    }));
}

/** A concrete URL for a route pattern, in the account the requests name. */
function sampleUrl(pattern: string): string {
  return pattern.replace(':account_id', 'acme').replace(/:\w+/g, 'x1').replace('*', 'a/b');
}

/** A Fastify app that answers any request with the name of the service it stands for. */
async function startService(name: ServiceName): Promise<{ url: string; app: FastifyInstance }> {
  const app = Fastify();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, body, done) => done(null, body));
  app.all('/*', () => ({ service: name }));
  return { url: await app.listen({ port: 0, host: '127.0.0.1' }), app };
}

/**
 * The gateway's routing table against the real controllers: each route reaches exactly the service
 * whose module serves it in the standalone shape, and the gateway's, the platform's and the internal
 * routes reach none.
 */
describe('route ownership (distributed gateway)', () => {
  const routes = controllerRoutes();
  const services = new Map<ServiceName, { url: string; app: FastifyInstance }>();
  const gateway = Fastify();

  beforeAll(async () => {
    for (const name of SERVICES) services.set(name, await startService(name));
    const urls = Object.fromEntries(SERVICES.map((name) => [`GUIDEPOST_${name.toUpperCase()}_SERVICE_URL`, services.get(name)!.url]));
    const config = loadConfig({ ...urls, GUIDEPOST_INTERNAL_TOKEN: 'internal-token-for-tests-0123456789abcdef' });
    // The gateway states each request's link base to the service, as the host's HTTP set-up records it.
    recordPublicBaseUrls(gateway, config);
    new GatewayProxy(config, new MetricsRegistry()).install(gateway);
    await gateway.ready();
  });

  afterAll(async () => {
    await gateway.close();
    await Promise.all([...services.values()].map(({ app }) => app.close()));
  });

  it('finds the routes of every service and of the gateway', () => {
    const servedBy = new Set(routes.map((route) => route.servedBy));
    expect([...servedBy].sort()).toEqual([...SERVICES, undefined].sort());
    expect(routes).toContainEqual({ method: 'POST', path: '/v2/accounts/:account_id/users/:user_id/events', servedBy: 'ingestion' });
  });

  it('routes every controller route to exactly the service that serves it', async () => {
    const misrouted: string[] = [];
    for (const route of routes) {
      const expected = route.path.startsWith('/internal/') ? undefined : route.servedBy;
      const response = await gateway.inject({ method: route.method as 'GET', url: sampleUrl(route.path) });
      const reached = response.statusCode === 404 ? undefined : response.json<{ service: ServiceName }>().service;
      if (reached !== expected)
        misrouted.push(`${route.method} ${route.path}: served by ${expected ?? 'the gateway'}, routed to ${reached ?? 'the gateway'}`);
    }
    expect(misrouted).toEqual([]);
  });

  it('has no entry that owns no route of its service', () => {
    const unused = ROUTE_OWNERSHIP.filter(({ prefix, service }) => {
      const pattern = new RegExp(`^${prefix.replace(/:\w+/g, '[^/]+')}(/|$)`);
      return !routes.some((route) => route.servedBy === service && pattern.test(route.path));
    });
    expect(unused).toEqual([]);
  });
});
