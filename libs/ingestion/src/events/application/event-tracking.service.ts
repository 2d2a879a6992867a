import { Injectable } from '@nestjs/common';
import { isKeptByFilteringRules } from '@guidepost/contracts-events';
import type { TrackEvent } from '@guidepost/contracts-http';
import { FilteredItems } from '../../filtering/application/filtered-items';
import { FilteringRules } from '../../filtering/application/filtering-rules.service';
import { EventIntake } from './event-intake.service';
import { trackedEvent } from './tracked-event';

/** Track: one event of one user, recorded unless the account's filtering rules drop its name. */
@Injectable()
export class EventTracking {
  constructor(
    private readonly rules: FilteringRules,
    private readonly filtered: FilteredItems,
    private readonly intake: EventIntake,
  ) {}

  /** Resolves once the event is durable, or at once when the rules drop it (counted, not stored). */
  async track(accountId: string, userId: string, input: TrackEvent): Promise<void> {
    const event = trackedEvent(userId, input, new Date());
    if (!isKeptByFilteringRules(await this.rules.rulesFor(accountId), 'eventNames', event.name)) {
      this.filtered.record('track', 'event', accountId, [event.name]);
      return;
    }
    await this.intake.accept(accountId, event);
  }
}
