import { Module } from '@nestjs/common';
import { ServiceDatabaseModule } from '@guidepost/platform-database';
import { ContentAdminController } from './api/content-admin.controller';
import { MobileController, PinsController } from './api/experiences.controller';
import { FlowsController } from './api/flows.controller';
import { IngestionFilteringRulesController } from './api/ingestion-filtering-rules.controller';
import { TagsController } from './api/tags.controller';
import { ExperienceCatalog } from './application/experience-catalog.service';
import { FlowCatalog } from './application/flow-catalog.service';
import { IngestionFilteringRulesService } from './application/ingestion-filtering-rules.service';
import { TagCatalog } from './application/tag-catalog.service';
import { ExperienceRepository, FlowRepository, TagRepository } from './data-access/content.repositories';
import { CONTENT_DATABASE } from './data-access/content-database';
import { IngestionFilteringRulesRepository } from './data-access/ingestion-filtering-rules.repository';

/**
 * The content service: flows, pins, mobile experiences, tags and ingestion filtering rules, in the
 * `content` schema. Needs from the host: `AppConfig` (global), a `MessageBus` (global) for its outbox
 * relay, and the platform HTTP module (guards, body handling, Problem Details).
 */
@Module({
  imports: [
    ServiceDatabaseModule.forService(CONTENT_DATABASE),
  ],
  controllers: [
    FlowsController,
    PinsController,
    MobileController,
    TagsController,
    IngestionFilteringRulesController,
    ContentAdminController,
  ],
  providers: [
    FlowRepository,
    ExperienceRepository,
    TagRepository,
    IngestionFilteringRulesRepository,
    FlowCatalog,
    ExperienceCatalog,
    TagCatalog,
    IngestionFilteringRulesService,
  ],
})
export class ContentModule {}
