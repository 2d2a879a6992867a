export { ObservabilityModule, useStructuredLogger } from './observability.module';
export { rootLoggerOf } from './logging/logger-params';
export { MetricsRegistry } from './metrics/metrics-registry';
export { ReadinessProbe } from './health/readiness-probe';
export { reportScrapedGauge, type ScrapedGaugeDefinition, type ScrapedValue } from './metrics/scraped-gauge';
