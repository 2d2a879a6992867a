import type { Writable } from 'node:stream';
import type { RecordedEvent } from '@guidepost/contracts-events';
import type { Event, ExportCondition } from '@guidepost/contracts-http';
import { PermanentFailure } from '@guidepost/platform-failures';

/** An event with the account it belongs to: what the event store keeps. */
export interface AccountEvent {
  readonly accountId: string;
  readonly event: RecordedEvent;
}

/** What an event history read asks for. */
export interface HistoryQuery {
  readonly accountId: string;
  readonly userId: string;
  readonly limit: number;
  /** Offset of the rendered timestamps, minutes east of UTC (0: `Z`). */
  readonly timeZoneMinutes: number;
}

/** What an export reads: the validated request, resolved to instants and numbers. */
export interface ExportQuery {
  readonly accountId: string;
  readonly format: 'csv' | 'json';
  readonly conditions: readonly ExportCondition[];
  /** Events from this instant on (inclusive)... */
  readonly startTime: Date;
  /** ...and before this one (exclusive); no end when absent. */
  readonly endTime?: Date;
  readonly timeZoneMinutes: number;
  readonly limit: number;
  readonly offset: number;
  /** Only events the service had received by then: the export reads the store as of its request. */
  readonly receivedBy: Date;
}

/**
 * An export whose events need more memory than an export query may take in the store: rows too large
 * (or, in CSV, too many attribute columns) to render within the budget. The same export needs as much
 * every time, so its job fails at once with this reason instead of being tried again like an outage,
 * which would hold back every export behind it.
 */
export class ExportOverMemoryBudget extends PermanentFailure {
  constructor(budgetBytes: number, cause: unknown) {
    super(
      `the exported events need more than the ${Math.round(budgetBytes / 1024 / 1024)} MiB of memory an export may use in the event store: ` +
        'export fewer events at a time (a shorter range between start_time and end_time, conditions, or limit and offset), or, for a CSV export of events with many attributes, export as json',
      { cause },
    );
    this.name = 'ExportOverMemoryBudget';
  }
}

/**
 * The event store: end-user events in ClickHouse (the engine in process in the standalone shape, a
 * server over HTTP in the distributed one; the same SQL). Writes are idempotent by event id, reads are
 * exact (duplicates of a replayed batch are never returned).
 */
export abstract class EventStore {
  /**
   * Stores events, of any accounts, in one write. An event whose account, user, timestamp and id are
   * stored already is not stored again: the first copy stays, and readers see it once.
   */
  abstract insert(events: readonly AccountEvent[]): Promise<void>;
  /** A user's events, newest first. */
  abstract history(query: HistoryQuery): Promise<Event[]>;
  /**
   * Writes the matching events to `output` (NDJSON for json, CSV with `attributes.<key>` columns for
   * csv) in time order, without holding them all in memory; resolves with the number of events
   * written. It does not end `output`. It rejects when `output` fails or closes; the caller still
   * listens for `output`'s errors, as for any stream it owns. It rejects with `ExportOverMemoryBudget`
   * when the events are too large to export within the store's memory budget.
   */
  abstract export(query: ExportQuery, output: Writable): Promise<number>;
}
