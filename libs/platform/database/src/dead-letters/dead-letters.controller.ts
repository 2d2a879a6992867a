import { Controller, Get, HttpCode, Inject, Param, Post, Query, type Type } from '@nestjs/common';
import type { DeadLetter, DeadLetterBulkReplay, DeadLetterFilter, DeadLetterPage, DeadLetterSummary } from '@guidepost/contracts-http';
import { ValidBody } from '@guidepost/platform-http';
import { listQueryOf, replayFilterOf } from './dead-letter-query';
import type { DeadLetterStore } from './dead-letter-store';

export const deadLetterStoreToken = (schema: string): string => `DeadLetterStore:${schema}`;

/**
 * The admin API of one service's dead letters, at `/admin/v1/dead-letters/{service}` (the service's
 * schema name), behind the admin Bearer token. Made per service, so that each serves its own: in the
 * distributed shape the gateway routes the path to the service, in the standalone shape one process
 * carries every service's.
 */
export function deadLettersControllerFor(schema: string): Type {
  @Controller(`admin/v1/dead-letters/${schema}`)
  class DeadLettersController {
    constructor(@Inject(deadLetterStoreToken(schema)) private readonly store: DeadLetterStore) {}

    /** Newest first; `limit` (1-500, default 50), `cursor` (the previous page's `next_cursor`), `topic`, `group`, `status`. */
    @Get()
    list(@Query() query: Record<string, unknown>): Promise<DeadLetterPage> {
      return this.store.list(listQueryOf(query));
    }

    /** Replays every waiting dead letter matching the body's `topic` and `group` (all without a body). */
    @Post('replay')
    @HttpCode(200)
    replayAll(@ValidBody(replayFilterOf) filter: DeadLetterFilter): Promise<DeadLetterBulkReplay> {
      return this.store.replayAll(filter);
    }

    @Get(':id')
    show(@Param('id') id: string): Promise<DeadLetter> {
      return this.store.get(id);
    }

    @Post(':id/replay')
    @HttpCode(200)
    replay(@Param('id') id: string): Promise<DeadLetterSummary> {
      return this.store.replay(id);
    }
  }
  const name = `${schema.charAt(0).toUpperCase()}${schema.slice(1)}DeadLettersController`;
  Object.defineProperty(DeadLettersController, 'name', { value: name });
  return DeadLettersController;
}
