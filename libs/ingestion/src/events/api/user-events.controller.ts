import { Controller, Get, HttpStatus, type OnModuleInit, Param, Query } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { type Event, statusAcknowledgement, type StatusAcknowledgement, type TrackEvent } from '@guidepost/contracts-http';
import { AppConfig } from '@guidepost/platform-config';
import { CsvRendering, type DirectRoutePath, IdentifierParam, serveDirectRoute, ServesDirectly } from '@guidepost/platform-http';
import { EventStore } from '../application/event-store.port';
import { EventTracking } from '../application/event-tracking.service';
import { historyQueryOf } from '../application/history-query';
import { parseTrackEvent } from '../application/tracked-event';

/** Track, the busiest route: served by Fastify directly (`serveDirectRoute`), past Nest's per-request pipeline. */
const TRACK: DirectRoutePath = { method: 'POST', url: '/v2/accounts/:account_id/users/:user_id/events' };

/** A user's events: track one, read the history. */
@Controller('v2/accounts/:account_id/users/:user_id/events')
@ServesDirectly(TRACK)
export class UserEventsController implements OnModuleInit {
  constructor(
    private readonly tracking: EventTracking,
    private readonly events: EventStore,
    private readonly adapterHost: HttpAdapterHost,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    serveDirectRoute<TrackEvent>(this.adapterHost.httpAdapter.getInstance<FastifyInstance>(), this.config, {
      ...TRACK,
      status: HttpStatus.OK,
      ids: ['user_id'],
      body: parseTrackEvent,
      handle: (params, input) => this.track(params['account_id'], params['user_id'], input),
    });
  }

  /** 200 once the event is durable (or dropped by the filtering rules). */
  async track(accountId: string, userId: string, input: TrackEvent): Promise<StatusAcknowledgement> {
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
