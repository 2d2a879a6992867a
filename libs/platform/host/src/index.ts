export { createHttpApplication } from './http-application';
export { runHost, stopGracefullyOnSignals } from './process-lifecycle';
export { runServiceHost } from './service-host';
