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
import { CONTENT_SCHEMA } from './data-access/content-schema';
import { ExperienceEntity } from './data-access/experience.entity';
import { FlowEntity } from './data-access/flow.entity';
import { IngestionFilteringRulesEntity } from './data-access/ingestion-filtering-rules.entity';
import { IngestionFilteringRulesRepository } from './data-access/ingestion-filtering-rules.repository';
import { CreateContentTables1763740800000 } from './data-access/migrations/0001-create-content-tables';
import { TagEntity } from './data-access/tag.entity';

/**
 * The content service: flows, pins, mobile experiences, tags and ingestion filtering rules, in the
 * `content` schema. Needs from the host: `AppConfig` (global), a `MessageBus` (global) for its outbox
 * relay, and the platform HTTP module (guards, body handling, Problem Details).
 */
@Module({
  imports: [
    ServiceDatabaseModule.forService({
      schema: CONTENT_SCHEMA,
      entities: [FlowEntity, ExperienceEntity, TagEntity, IngestionFilteringRulesEntity],
      migrations: [CreateContentTables1763740800000],
    }),
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
