import {
  EventsAccepted,
  ImportKind,
  type IngestionFilteringRules,
  isKeptByFilteringRules,
  ProfileRowsImported,
  type ProfileRow,
  type RecordedEvent,
} from '@guidepost/contracts-events';
import { eventRows, groupProfileRows, type ImportOrigin, type ImportRowMapper, userProfileRows } from '../domain/import-rows';
import type { Publish } from './import-batch-writer';

/** Where the rows of one import kind go, and what of them the ingestion filtering rules may drop. */
export interface ImportTarget<T> {
  readonly rows: ImportRowMapper<T>;
  /** The item's name when the rules drop it; absent when the rules are applied downstream (profile properties). */
  readonly droppedName?: (rules: IngestionFilteringRules, item: T) => string | undefined;
  readonly publish: Publish<T>;
}

export interface ImportedInto extends ImportOrigin {
  readonly accountId: string;
}

/** Events go to the event store (`EventsAccepted`), minus the names the rules drop. */
function eventTarget(origin: ImportedInto): ImportTarget<RecordedEvent> {
  return {
    rows: eventRows(origin),
    droppedName: (rules, event) => (isKeptByFilteringRules(rules, 'eventNames', event.name) ? undefined : event.name),
    // Keyed by batch, as the topic asks: events carry their own timestamps, batches need no order.
    publish: (tx, messageId, events) => tx.emit(EventsAccepted, messageId, { accountId: origin.accountId, events: [...events] }, messageId),
  };
}

/** Profile rows go to the profile service (`ProfileRowsImported`), which applies the property rules. */
function profileTarget(origin: ImportedInto, profileKind: 'user' | 'group'): ImportTarget<ProfileRow> {
  return {
    rows: profileKind === 'user' ? userProfileRows : groupProfileRows,
    publish: (tx, messageId, rows) =>
      tx.emit(
        ProfileRowsImported,
        origin.jobId,
        { accountId: origin.accountId, jobId: origin.jobId, profileKind, rows: [...rows], importedAt: origin.stagedAt },
        messageId,
      ),
  };
}

export function importTarget(kind: ImportKind, origin: ImportedInto): ImportTarget<RecordedEvent> | ImportTarget<ProfileRow> {
  switch (kind) {
    case ImportKind.Events:
      return eventTarget(origin);
    case ImportKind.Profiles:
      return profileTarget(origin, 'user');
    case ImportKind.Groups:
      return profileTarget(origin, 'group');
  }
}
