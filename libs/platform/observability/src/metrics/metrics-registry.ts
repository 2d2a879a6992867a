import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, type CounterConfiguration, Registry } from 'prom-client';

/**
 * The application's one Prometheus registry, with Node's default metrics. Inject it to add your own:
 * `new Counter({ name: 'guidepost_outbox_dead_letters_total', help: '...', registers: [registry] })`.
 * A registry per application (rather than prom-client's global one) keeps several apps in one
 * process, as in tests, from colliding on metric names.
 */
@Injectable()
export class MetricsRegistry extends Registry {
  constructor() {
    super();
    collectDefaultMetrics({ register: this });
  }

  /**
   * The counter of this name, made on first use. Services that count the same thing (items dropped by
   * the filtering rules, say) share one metric, also when the standalone shape runs them in one process.
   */
  counter<L extends string>(configuration: Omit<CounterConfiguration<L>, 'registers'>): Counter<L> {
    const existing = this.getSingleMetric(configuration.name);
    if (existing) return existing as Counter<L>;
    return new Counter<L>({ ...configuration, registers: [this] });
  }
}
