export { createHttpApplication } from './http-application';
export { runHost, stopGracefullyOnSignals } from './process-lifecycle';
export { globalProviders } from './global-providers';
export { runServiceHost, type RequiredSetting, type ServiceHostDefinition } from './service-host';
