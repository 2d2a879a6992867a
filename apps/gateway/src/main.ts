import { GatewayHttpHooks, GatewayModule, OpenApiModule } from '@guidepost/gateway';
import { runServiceHost } from '@guidepost/platform-host';

/**
 * The gateway on its own (distributed shape): accounts, keys, authentication, throttling and the
 * OpenAPI document. Routing each public route to its owning service arrives with the distributed
 * suite (issue 4); until then, authenticated requests for service routes answer 404.
 */
runServiceHost('Gateway', [GatewayModule, OpenApiModule], (app) =>
  app.get(GatewayHttpHooks).install(app.getHttpAdapter().getInstance()),
);
