export { GatewayModule } from './gateway.module';
export { GatewayHttpHooks } from './api/gateway-http.hooks';
export { OpenApiModule } from './openapi.module';
