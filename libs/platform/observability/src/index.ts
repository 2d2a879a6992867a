export { ObservabilityModule, useStructuredLogger } from './observability.module';
export { MetricsRegistry } from './metrics/metrics-registry';
export { ReadinessProbe } from './health/readiness-probe';
export { reportScrapedGauge, type ScrapedGaugeDefinition, type ScrapedValue } from './metrics/scraped-gauge';
