import { Logger } from '@nestjs/common';
import { Gauge } from 'prom-client';
import type { MetricsRegistry } from './metrics-registry';

/** One value of a scraped gauge: its labels other than `service`, and the value. */
export interface ScrapedValue<L extends string> {
  readonly labels: Readonly<Record<L, string>>;
  readonly value: number;
}

/** A gauge whose values are read from their source (a service's schema) at every scrape. */
export interface ScrapedGaugeDefinition<L extends string> {
  readonly name: string;
  readonly help: string;
  /** Labels besides `service`, which every scraped gauge has. */
  readonly labelNames: readonly L[];
}

interface Source<L extends string> {
  readonly service: string;
  readonly read: () => Promise<ScrapedValue<L>[]>;
  /** Label sets this source reported last time, so that one it no longer reports reads 0. */
  readonly reported: Set<string>;
}

type Entry = { readonly gauge: Gauge<string>; readonly sources: Source<string>[] };

const gauges = new WeakMap<MetricsRegistry, Map<string, Entry>>();
const logger = new Logger('ScrapedGauge');

/**
 * Adds a service's source to the gauge of this name, made on first use: at every scrape each source is
 * read (a count in the service's schema, say), so the value is always current and nothing needs to keep
 * it up to date. One gauge per process, fed by every service it carries (all of them in the standalone
 * shape). A label set a source stops reporting reads 0; a source that cannot be read during a scrape
 * keeps its last values (and says why in a warning), so one schema that is down fails no scrape.
 */
export function reportScrapedGauge<L extends string>(
  registry: MetricsRegistry,
  definition: ScrapedGaugeDefinition<L>,
  service: string,
  read: () => Promise<ScrapedValue<L>[]>,
): void {
  let ofRegistry = gauges.get(registry);
  if (!ofRegistry) gauges.set(registry, (ofRegistry = new Map<string, Entry>()));
  let entry = ofRegistry.get(definition.name);
  if (!entry) {
    const sources: Source<string>[] = [];
    const gauge: Gauge<string> = new Gauge<string>({
      name: definition.name,
      help: definition.help,
      labelNames: ['service', ...definition.labelNames],
      registers: [registry],
      collect: () => Promise.all(sources.map((source) => refresh(gauge, definition.name, source))).then(() => undefined),
    });
    entry = { gauge, sources };
    ofRegistry.set(definition.name, entry);
  }
  entry.sources.push({ service, read, reported: new Set() });
}

async function refresh(gauge: Gauge<string>, name: string, source: Source<string>): Promise<void> {
  let values: ScrapedValue<string>[];
  try {
    values = await source.read();
  } catch (error) {
    logger.warn(`could not read ${name} of ${source.service}: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  const now = new Set<string>();
  for (const { labels, value } of values) {
    gauge.set({ service: source.service, ...labels }, value);
    now.add(JSON.stringify(labels));
  }
  for (const key of source.reported) {
    if (!now.has(key)) gauge.set({ service: source.service, ...(JSON.parse(key) as Record<string, string>) }, 0);
  }
  for (const key of now) source.reported.add(key);
}
