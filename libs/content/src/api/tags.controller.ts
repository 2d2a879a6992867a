import { Controller, Get, Param } from '@nestjs/common';
import type { Tag } from '@guidepost/contracts-http';
import { PublicBaseUrl } from '@guidepost/platform-http';
import { TagCatalog } from '../application/tag-catalog.service';

@Controller('v2/accounts/:account_id/tags')
export class TagsController {
  constructor(private readonly tags: TagCatalog) {}

  @Get()
  list(@Param('account_id') accountId: string, @PublicBaseUrl() baseUrl: string): Promise<Tag[]> {
    return this.tags.list(accountId, baseUrl);
  }

  @Get(':tag_id')
  get(@Param('account_id') accountId: string, @Param('tag_id') id: string, @PublicBaseUrl() baseUrl: string): Promise<Tag> {
    return this.tags.get(accountId, id, baseUrl);
  }
}
