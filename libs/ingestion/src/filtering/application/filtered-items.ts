import { Injectable, Logger } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { MetricsRegistry } from '@guidepost/platform-observability';

/** Where an item came in (labels shared with the profile service, which counts the same metric). */
export type FilteringIntake = 'track' | 'import';
export type FilteredKind = 'event' | 'user_property' | 'group_property';

const LOGGED_NAMES = 10;

/**
 * Items the ingestion filtering rules dropped: never stored, but never lost without a trace either.
 * Each drop is counted in `guidepost_ingestion_filtered_total{intake,kind}` and named in a debug line.
 */
@Injectable()
export class FilteredItems {
  private readonly logger = new Logger(FilteredItems.name);
  private readonly dropped: Counter<'intake' | 'kind'>;

  constructor(metrics: MetricsRegistry) {
    this.dropped = metrics.counter({
      name: 'guidepost_ingestion_filtered_total',
      help: 'Items dropped by the ingestion filtering rules, by intake and kind',
      labelNames: ['intake', 'kind'],
    });
  }

  record(intake: FilteringIntake, kind: FilteredKind, accountId: string, names: readonly string[]): void {
    if (names.length === 0) return;
    this.dropped.inc({ intake, kind }, names.length);
    const shown = names.slice(0, LOGGED_NAMES).join(', ') + (names.length > LOGGED_NAMES ? ', ...' : '');
    this.logger.debug(`filtering rules of account ${accountId} dropped ${names.length} ${kind} item(s) at ${intake}: ${shown}`);
  }
}
