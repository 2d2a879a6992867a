import type { ServiceDatabaseOptions } from '@guidepost/platform-database';
import { CONTENT_SCHEMA } from './content-schema';
import { ExperienceEntity } from './experience.entity';
import { FlowEntity } from './flow.entity';
import { IngestionFilteringRulesEntity } from './ingestion-filtering-rules.entity';
import { CreateContentTables1763740800000 } from './migrations/0001-create-content-tables';
import { CreateContentDeadLetters1795537290473 } from './migrations/0002-create-dead-letters';
import { IndexContentMessagingRetention1795610000000 } from './migrations/0003-index-messaging-retention';
import { CreateStudioDocuments1795620000000 } from './migrations/0004-create-studio-documents';
import { ManageStudioDocumentAuthors1795848311100 } from './migrations/0005-manage-studio-document-authors';
import { KeepStateWithPublished1795848968830 } from './migrations/0006-keep-state-with-published';
import { StudioDocumentEntity } from './studio-document.entity';
import { TagEntity } from './tag.entity';

/** The content service's PostgreSQL schema, its entities and its migrations (in order; append only). */
export const CONTENT_DATABASE: ServiceDatabaseOptions = {
  schema: CONTENT_SCHEMA,
  entities: [FlowEntity, ExperienceEntity, StudioDocumentEntity, TagEntity, IngestionFilteringRulesEntity],
  migrations: [
    CreateContentTables1763740800000,
    CreateContentDeadLetters1795537290473,
    IndexContentMessagingRetention1795610000000,
    CreateStudioDocuments1795620000000,
    ManageStudioDocumentAuthors1795848311100,
    KeepStateWithPublished1795848968830,
  ],
};
