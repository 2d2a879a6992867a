import { Gauge, Histogram, type Counter } from 'prom-client';
import type { MetricsRegistry } from '@guidepost/platform-observability';

type TopicLabel = 'topic';
type ConsumerLabel = 'topic' | 'group';

/**
 * What an operator watches on the Kafka bus: throughput in and out, handler failures and dead
 * letters (each dead letter is a message that needs a look), how far each consumer group is behind
 * per partition, and how long handlers take.
 */
export class KafkaBusMetrics {
  readonly published: Counter<TopicLabel>;
  readonly consumed: Counter<ConsumerLabel>;
  readonly handlerFailures: Counter<ConsumerLabel | 'class'>;
  readonly waiting: Gauge<ConsumerLabel>;
  readonly deadLettered: Counter<ConsumerLabel>;
  readonly lag: Gauge<ConsumerLabel | 'partition'>;
  readonly handleDuration: Histogram<ConsumerLabel>;

  constructor(registry: MetricsRegistry) {
    this.published = registry.counter({
      name: 'guidepost_bus_messages_published_total',
      help: 'Messages the broker acknowledged, by topic',
      labelNames: ['topic'],
    });
    this.consumed = registry.counter({
      name: 'guidepost_bus_messages_consumed_total',
      help: 'Messages handled and committed, by topic and consumer group',
      labelNames: ['topic', 'group'],
    });
    this.handlerFailures = registry.counter({
      name: 'guidepost_bus_handler_failures_total',
      help: 'Handler runs that threw (each retry counts), by topic, consumer group and failure class (transient, permanent, unrecognised)',
      labelNames: ['topic', 'group', 'class'],
    });
    this.waiting = new Gauge({
      name: 'guidepost_bus_consumer_waiting',
      help: '1 while a consumer group holds a message back because a dependency it needs is unavailable (it retries until it is back)',
      labelNames: ['topic', 'group'],
      registers: [registry],
    });
    this.deadLettered = registry.counter({
      name: 'guidepost_bus_dead_letters_total',
      help: 'Messages sent to their dead-letter topic, by topic and consumer group',
      labelNames: ['topic', 'group'],
    });
    this.lag = new Gauge({
      name: 'guidepost_bus_consumer_lag',
      help: 'Messages of a partition not yet handled by the consumer group, as of its latest batch',
      labelNames: ['topic', 'group', 'partition'],
      registers: [registry],
    });
    this.handleDuration = new Histogram({
      name: 'guidepost_bus_handle_duration_seconds',
      help: 'Duration of one handler run (one message, or one batch for batch consumers), by topic and consumer group',
      labelNames: ['topic', 'group'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    });
  }
}
