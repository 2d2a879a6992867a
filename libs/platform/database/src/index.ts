export { startEmbeddedPostgres, type RunningPostgres } from './embedded-postgres';
export { MESSAGING_ENTITIES, OutboxMessageEntity, ProcessedMessageEntity } from './messaging.entities';
export { createMessagingTables, dropMessagingTables } from './messaging-tables';
export { FilteringRulesCopy } from './filtering-rules-copy';
export { OutboxRelay } from './outbox-relay';
export { UnitOfWork, type Transaction } from './unit-of-work';
export {
  InjectUnitOfWork,
  migrateServiceDatabase,
  migrateServiceSchema,
  ServiceDatabaseModule,
  unitOfWorkToken,
  type ServiceDatabaseOptions,
} from './service-database.module';
