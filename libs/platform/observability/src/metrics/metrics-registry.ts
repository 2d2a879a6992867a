import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';

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
}
