import { Logger } from '@nestjs/common';
import { Gauge } from 'prom-client';
import type { MetricsRegistry } from '@guidepost/platform-observability';
import type { WaitingCount } from './dead-letter-store';

const NAME = 'guidepost_dead_letters_waiting';

type Labels = 'service' | 'topic' | 'group';

interface Source {
  readonly service: string;
  readonly waitingCounts: () => Promise<WaitingCount[]>;
  /** Label sets this source reported last time, so that one with nothing waiting any more reads 0. */
  readonly reported: Set<string>;
}

const gauges = new WeakMap<MetricsRegistry, { gauge: Gauge<Labels>; sources: Source[] }>();
const logger = new Logger('DeadLetterMetrics');

/**
 * Adds a service's dead letters to `guidepost_dead_letters_waiting` (per service, topic and group; the
 * relay's group is empty), counted in its schema at every scrape, so the value is always current. One
 * gauge per process, fed by every schema it carries (all of them in the standalone shape). A schema
 * that cannot be read during a scrape keeps its last values.
 */
export function reportWaitingDeadLetters(registry: MetricsRegistry, service: string, waitingCounts: () => Promise<WaitingCount[]>): void {
  let entry = gauges.get(registry);
  if (!entry) {
    const sources: Source[] = [];
    const gauge: Gauge<Labels> = new Gauge<Labels>({
      name: NAME,
      help: 'Dead letters waiting for an operator (not replayed), by service, topic and consumer group (empty: the outbox relay)',
      labelNames: ['service', 'topic', 'group'],
      registers: [registry],
      collect: () => Promise.all(sources.map((source) => refresh(gauge, source))).then(() => undefined),
    });
    entry = { gauge, sources };
    gauges.set(registry, entry);
  }
  entry.sources.push({ service, waitingCounts, reported: new Set() });
}

async function refresh(gauge: Gauge<Labels>, source: Source): Promise<void> {
  let counts: WaitingCount[];
  try {
    counts = await source.waitingCounts();
  } catch (error) {
    logger.warn(`could not count the dead letters of ${source.service}: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  const now = new Set<string>();
  for (const { topic, group, count } of counts) {
    gauge.set({ service: source.service, topic, group }, count);
    now.add(JSON.stringify([topic, group]));
  }
  for (const key of source.reported) {
    if (now.has(key)) continue;
    const [topic, group] = JSON.parse(key) as [string, string];
    gauge.set({ service: source.service, topic, group }, 0);
  }
  for (const key of now) source.reported.add(key);
}
