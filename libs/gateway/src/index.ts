export { GatewayModule } from './gateway.module';
export { GATEWAY_DATABASE } from './data-access/gateway-database';
export { GatewayHttpHooks } from './api/gateway-http.hooks';
export { GatewayProxy } from './routing/gateway-proxy';
export { ROUTE_OWNERSHIP, type RouteOwnership } from './routing/route-ownership';
export { OpenApiModule } from './openapi.module';
