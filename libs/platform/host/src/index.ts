export { adminAddressOf, createHttpApplication, type HttpApplicationOptions, listen } from './http-application';
export { REQUESTS_SHARE_OF_GRACE, ShutdownReadiness, shutDown, type ShutdownPlan } from './graceful-shutdown';
export { runHost, stopGracefullyOnSignals } from './process-lifecycle';
export { globalProviders } from './global-providers';
export { runServiceHost, type RequiredSetting, type ServiceHostDefinition } from './service-host';
export { assertPortAvailable, startupFailureLine } from './startup-failure';
export { ServedCertificate } from './served-certificate';
