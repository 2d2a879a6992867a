import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EventsAccepted, type IngestionFilteringRules, type RecordedEvent } from '@guidepost/contracts-events';
import type { Transaction } from '@guidepost/platform-database';
import type { Intake } from '../domain/profile-kind';
import { batchesOf, EVENTS_PER_MESSAGE, PROFILE_UPDATE_EVENT } from '../domain/profile-update-events';
import { IntakeFilter } from './intake-filter';

/**
 * Sends the `svc:profile_update` events of user-profile writes to the event store, through the outbox
 * of the transaction that writes the profiles, at most `EVENTS_PER_MESSAGE` per message, unless the
 * account's rules drop the event name.
 */
@Injectable()
export class ProfileUpdateRecorder {
  constructor(private readonly filter: IntakeFilter) {}

  /**
   * `messageIdOf` gives deterministic message ids where the caller has them (a replayed import batch
   * then re-emits nothing new); a message's id is also its key, so batches spread over partitions.
   */
  record(
    tx: Transaction,
    rules: IngestionFilteringRules,
    intake: Intake,
    accountId: string,
    events: readonly RecordedEvent[],
    messageIdOf: (batchIndex: number) => string = () => randomUUID(),
  ): void {
    if (events.length === 0 || !this.filter.keepsEvents(rules, intake, accountId, PROFILE_UPDATE_EVENT, events.length)) return;
    batchesOf(events, EVENTS_PER_MESSAGE).forEach((batch, index) => {
      const id = messageIdOf(index);
      tx.emit(EventsAccepted, id, { accountId, events: batch }, id);
    });
  }
}
