import { Controller, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { type Event, statusAcknowledgement, type StatusAcknowledgement, type TrackEvent } from '@guidepost/contracts-http';
import { CsvRendering, IdentifierParam, ValidBody } from '@guidepost/platform-http';
import { EventStore } from '../application/event-store.port';
import { EventTracking } from '../application/event-tracking.service';
import { historyQueryOf } from '../application/history-query';
import { parseTrackEvent } from '../application/tracked-event';

/** A user's events: track one, read the history. */
@Controller('v2/accounts/:account_id/users/:user_id/events')
export class UserEventsController {
  constructor(
    private readonly tracking: EventTracking,
    private readonly events: EventStore,
  ) {}

  /** 200 once the event is durable (or dropped by the filtering rules). */
  @Post()
  @HttpCode(HttpStatus.OK)
  async track(
    @Param('account_id') accountId: string,
    @Param('user_id', IdentifierParam) userId: string,
    @ValidBody(parseTrackEvent) input: TrackEvent,
  ): Promise<StatusAcknowledgement> {
    await this.tracking.track(accountId, userId, input);
    return statusAcknowledgement();
  }

  /** Newest first; an unknown user has no events (200 `[]`). */
  @Get()
  @CsvRendering({ flatten: ['attributes'] })
  async history(
    @Param('account_id') accountId: string,
    @Param('user_id', IdentifierParam) userId: string,
    @Query() query: Record<string, unknown>,
  ): Promise<Event[]> {
    const events = await this.events.history(historyQueryOf(accountId, userId, query));
    // Fixed column order for CSV: user_id, name, timestamp, then the attributes.<key> columns.
    return events.map(({ user_id, name, timestamp, attributes }) => ({ user_id, name, timestamp, ...(attributes ? { attributes } : {}) }));
  }
}
