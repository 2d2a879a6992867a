import {
  ImportKind,
  type IngestionFilteringRules,
  isKeptByFilteringRules,
  ProfileRowsImported,
  type ProfileRow,
  type RecordedEvent,
} from '@guidepost/contracts-events';
import type { EventWrites } from '../../events/application/event-writes';
import { type BatchLimits, PUBLISHED_BATCH, STORED_BATCH } from '../domain/import-batch';
import { eventRows, groupProfileRows, type ImportOrigin, type ImportRowMapper, userProfileRows } from '../domain/import-rows';
import type { Publish } from './import-batch-writer';

/**
 * Rows another service takes in: each batch is published in the transaction that records its
 * failures, and the import paces itself to the outbox relay.
 */
export interface PublishedRows<T> {
  readonly kind: 'published';
  readonly publish: Publish<T>;
}

/**
 * Rows this service stores itself, in the event store: each batch is one insert, idempotent since
 * event ids are deterministic and the store drops the copies of stored events at insert.
 */
export interface StoredRows<T> {
  readonly kind: 'stored';
  store(items: readonly T[]): Promise<void>;
}

/** Where the rows of one import kind go, in batches of what size, and what of them the ingestion filtering rules may drop. */
export interface ImportTarget<T> {
  readonly rows: ImportRowMapper<T>;
  /** The item's name when the rules drop it; absent when the rules are applied downstream (profile properties). */
  readonly droppedName?: (rules: IngestionFilteringRules, item: T) => string | undefined;
  readonly delivery: PublishedRows<T> | StoredRows<T>;
  readonly batch: BatchLimits;
}

export interface ImportedInto extends ImportOrigin {
  readonly accountId: string;
}

/**
 * Events go straight into the event store, minus the names the rules drop: the staged file is the
 * durable record until the job completes, so they need no outbox or bus on the way, and the store
 * takes large inserts at its own pace.
 */
function eventTarget(origin: ImportedInto, writes: EventWrites): ImportTarget<RecordedEvent> {
  return {
    rows: eventRows(origin),
    droppedName: (rules, event) => (isKeptByFilteringRules(rules, 'eventNames', event.name) ? undefined : event.name),
    delivery: { kind: 'stored', store: (events) => writes.write(events.map((event) => ({ accountId: origin.accountId, event }))) },
    batch: STORED_BATCH,
  };
}

/** Profile rows go to the profile service (`ProfileRowsImported`), which applies the property rules. */
function profileTarget(origin: ImportedInto, profileKind: 'user' | 'group'): ImportTarget<ProfileRow> {
  return {
    rows: profileKind === 'user' ? userProfileRows : groupProfileRows,
    delivery: {
      kind: 'published',
      publish: (tx, messageId, rows) =>
        tx.emit(
          ProfileRowsImported,
          origin.jobId,
          { accountId: origin.accountId, jobId: origin.jobId, profileKind, rows: [...rows], importedAt: origin.stagedAt },
          messageId,
        ),
    },
    batch: PUBLISHED_BATCH,
  };
}

export function importTarget(
  kind: ImportKind,
  origin: ImportedInto,
  eventWrites: EventWrites,
): ImportTarget<RecordedEvent> | ImportTarget<ProfileRow> {
  switch (kind) {
    case ImportKind.Events:
      return eventTarget(origin, eventWrites);
    case ImportKind.Profiles:
      return profileTarget(origin, 'user');
    case ImportKind.Groups:
      return profileTarget(origin, 'group');
  }
}
