import { Module } from '@nestjs/common';
import { ServiceDatabaseModule } from '@guidepost/platform-database';
import { ContentAdminController } from './api/content-admin.controller';
import { EXPERIENCE_KIND_CONTROLLERS } from './api/experience-kinds.controllers';
import { FlowsController } from './api/flows.controller';
import { IngestionFilteringRulesController } from './api/ingestion-filtering-rules.controller';
import { TagsController } from './api/tags.controller';
import { ExperienceCatalog } from './application/experience-catalog.service';
import { ExperienceKinds } from './application/experience-kinds.service';
import { FlowCatalog } from './application/flow-catalog.service';
import { IngestionFilteringRulesService } from './application/ingestion-filtering-rules.service';
import { StudioDocumentCatalog } from './application/studio-document-catalog.service';
import { TagCatalog } from './application/tag-catalog.service';
import { ExperienceRepository, FlowRepository, StudioDocumentRepository, TagRepository } from './data-access/content.repositories';
import { CONTENT_DATABASE } from './data-access/content-database';
import { FilteringRulesAuthority } from './data-access/filtering-rules-authority.repository';

/**
 * The content service: flows, the experience kinds (pins, mobile, launchpads, ...: `EXPERIENCE_KINDS`),
 * tags and ingestion filtering rules, in the
 * `content` schema. Needs from the host: `AppConfig` (global), a `MessageBus` (global) for its outbox
 * relay, and the platform HTTP module (guards, body handling, Problem Details).
 */
@Module({
  imports: [ServiceDatabaseModule.forService(CONTENT_DATABASE)],
  controllers: [FlowsController, ...EXPERIENCE_KIND_CONTROLLERS, TagsController, IngestionFilteringRulesController, ContentAdminController],
  providers: [
    FlowRepository,
    ExperienceRepository,
    StudioDocumentRepository,
    TagRepository,
    FilteringRulesAuthority,
    FlowCatalog,
    ExperienceCatalog,
    StudioDocumentCatalog,
    ExperienceKinds,
    TagCatalog,
    IngestionFilteringRulesService,
  ],
})
export class ContentModule {}
