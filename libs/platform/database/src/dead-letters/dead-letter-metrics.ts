import { type MetricsRegistry, reportScrapedGauge } from '@guidepost/platform-observability';
import type { WaitingCount } from './dead-letter-store';

/**
 * Adds a service's dead letters to `guidepost_dead_letters_waiting` (per service, topic and group; the
 * relay's group is empty), counted in its schema at every scrape, so the value is always current. A
 * schema that cannot be read during a scrape keeps its last values.
 */
export function reportWaitingDeadLetters(registry: MetricsRegistry, service: string, waitingCounts: () => Promise<WaitingCount[]>): void {
  reportScrapedGauge(
    registry,
    {
      name: 'guidepost_dead_letters_waiting',
      help: 'Dead letters waiting for an operator (not replayed), by service, topic and consumer group (empty: the outbox relay)',
      labelNames: ['topic', 'group'],
    },
    service,
    async () => (await waitingCounts()).map(({ topic, group, count }) => ({ labels: { topic, group }, value: count })),
  );
}
