import type { ServiceDatabaseOptions } from '@guidepost/platform-database';
import { CreateSegmentTables1763740800001 } from './migrations/0001-create-segment-tables';
import { CreateSegmentDeadLetters1795537290473 } from './migrations/0002-create-dead-letters';
import { IndexSegmentMessagingRetention1795610000000 } from './migrations/0003-index-messaging-retention';
import { SegmentEntity } from './segment.entity';
import { SEGMENT_SCHEMA } from './segment-schema';

/** The segment service's PostgreSQL schema, its entities and its migrations (in order; append only). */
export const SEGMENT_DATABASE: ServiceDatabaseOptions = {
  schema: SEGMENT_SCHEMA,
  entities: [SegmentEntity],
  migrations: [CreateSegmentTables1763740800001, CreateSegmentDeadLetters1795537290473, IndexSegmentMessagingRetention1795610000000],
};
