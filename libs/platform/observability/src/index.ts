export { ObservabilityModule, useStructuredLogger } from './observability.module';
export { MetricsRegistry } from './metrics/metrics-registry';
