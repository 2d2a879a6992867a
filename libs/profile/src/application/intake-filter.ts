import { Injectable, Logger } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { type IngestionFilteringRules, isKeptByFilteringRules, NO_FILTERING } from '@guidepost/contracts-events';
import { MetricsRegistry } from '@guidepost/platform-observability';
import type { EntityManager } from 'typeorm';
import { type Intake, PROFILE_KINDS, type ProfileKind } from '../domain/profile-kind';
import { filterProperties, type ProfileProperties } from '../domain/profile-properties';
import { ProfileFilteringRulesCopy } from '../data-access/profile-filtering-rules-copy.repository';

/** What a write is about, for the trace of what the rules dropped from it. */
export interface WriteSubject {
  readonly kind: ProfileKind;
  readonly intake: Intake;
  readonly accountId: string;
  readonly id: string;
}

/**
 * Applies the account's ingestion filtering rules to what this service takes in: the properties of
 * profile writes, and the `svc:profile_update` events they record (the event store takes events
 * already filtered). Nothing dropped is lost without a trace: it is counted in
 * `guidepost_ingestion_filtered_total` (shared with the ingestion service) and named in a debug log line.
 */
@Injectable()
export class IntakeFilter {
  private readonly logger = new Logger(IntakeFilter.name);
  private readonly filtered: Counter<'intake' | 'kind'>;

  constructor(
    private readonly rules: ProfileFilteringRulesCopy,
    metrics: MetricsRegistry,
  ) {
    this.filtered = metrics.counter({
      name: 'guidepost_ingestion_filtered_total',
      help: 'Items dropped by the ingestion filtering rules, by intake and kind of item',
      labelNames: ['intake', 'kind'],
    });
  }

  /** The account's rules as this transaction sees them; an account that set none filters nothing. */
  async rulesOf(manager: EntityManager, accountId: string): Promise<IngestionFilteringRules> {
    return (await this.rules.find(manager, accountId)) ?? NO_FILTERING;
  }

  /** The properties of a write the rules keep. */
  keepProperties(rules: IngestionFilteringRules, subject: WriteSubject, properties: ProfileProperties): ProfileProperties {
    const { kept, dropped } = filterProperties(rules, subject.kind, properties);
    if (dropped.length > 0) {
      this.filtered.inc({ intake: subject.intake, kind: PROFILE_KINDS[subject.kind].filteredKind }, dropped.length);
      this.logger.debug(
        `filtering rules of account ${subject.accountId} dropped ${dropped.length} ${subject.kind} properties of ` +
          `'${subject.id}' (${subject.intake}): ${dropped.join(', ')}`,
      );
    }
    return kept;
  }

  /** Whether the rules keep `count` events of this name; when they do not, the events are counted as dropped. */
  keepsEvents(rules: IngestionFilteringRules, intake: Intake, accountId: string, name: string, count: number): boolean {
    if (isKeptByFilteringRules(rules, 'eventNames', name)) return true;
    this.filtered.inc({ intake, kind: 'event' }, count);
    this.logger.debug(`filtering rules of account ${accountId} dropped ${count} '${name}' events (${intake})`);
    return false;
  }
}
