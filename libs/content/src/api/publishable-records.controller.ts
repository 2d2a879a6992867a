import { Get, HttpCode, Param, Post } from '@nestjs/common';
import { statusAcknowledgement, type StatusAcknowledgement } from '@guidepost/contracts-http';
import { PublicBaseUrl } from '@guidepost/platform-http';
import type { PublishableCatalog } from '../application/publishable-catalog';

/**
 * The four public endpoints every publishable kind has: list, read, publish, unpublish. Each kind's
 * controller binds a path and its catalog. Publish and unpublish take no body (clients send none,
 * and no content type) and answer 200 whether or not the state changed.
 */
export abstract class PublishableRecordsController<P> {
  protected constructor(private readonly catalog: PublishableCatalog<P>) {}

  @Get()
  list(@Param('account_id') accountId: string, @PublicBaseUrl() baseUrl: string): Promise<P[]> {
    return this.catalog.list(accountId, baseUrl);
  }

  @Get(':record_id')
  get(@Param('account_id') accountId: string, @Param('record_id') id: string, @PublicBaseUrl() baseUrl: string): Promise<P> {
    return this.catalog.get(accountId, id, baseUrl);
  }

  @Post(':record_id/publish')
  @HttpCode(200)
  async publish(@Param('account_id') accountId: string, @Param('record_id') id: string): Promise<StatusAcknowledgement> {
    await this.catalog.publish(accountId, id);
    return statusAcknowledgement();
  }

  @Post(':record_id/unpublish')
  @HttpCode(200)
  async unpublish(@Param('account_id') accountId: string, @Param('record_id') id: string): Promise<StatusAcknowledgement> {
    await this.catalog.unpublish(accountId, id);
    return statusAcknowledgement();
  }
}
