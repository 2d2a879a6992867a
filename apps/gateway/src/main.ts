import { GATEWAY_DATABASE, GatewayHttpHooks, GatewayModule, GatewayProxy, OpenApiModule } from '@guidepost/gateway';
import { runServiceHost } from '@guidepost/platform-host';

/**
 * The gateway (distributed shape): accounts, keys, authentication, throttling and the OpenAPI
 * document; every other public route is authenticated here, then streamed to the service that owns it.
 */
runServiceHost({
  name: 'Gateway',
  modules: () => [GatewayModule, OpenApiModule],
  requires: [
    'GUIDEPOST_ADMIN_TOKEN',
    'GUIDEPOST_CONTENT_SERVICE_URL',
    'GUIDEPOST_SEGMENT_SERVICE_URL',
    'GUIDEPOST_PROFILE_SERVICE_URL',
    'GUIDEPOST_INGESTION_SERVICE_URL',
  ],
  storage: { database: GATEWAY_DATABASE },
  publicFacing: true,
  beforeCredentials: (app) => app.get(GatewayHttpHooks).installBeforeCredentials(app.getHttpAdapter().getInstance()),
  beforeInit: (app) => {
    const fastify = app.getHttpAdapter().getInstance();
    app.get(GatewayHttpHooks).install(fastify);
    app.get(GatewayProxy).install(fastify);
  },
});
