export { startEmbeddedPostgres, type RunningPostgres } from './embedded-postgres';
export { MESSAGING_ENTITIES, OutboxMessageEntity, ProcessedMessageEntity } from './messaging.entities';
export {
  createMessagingRetentionIndexes,
  createMessagingTables,
  dropMessagingRetentionIndexes,
  dropMessagingTables,
} from './messaging-tables';
export { MessagingRetention, PRUNE_BATCH_ROWS, type MessagingRetentionSettings, type PrunedRows } from './messaging-retention';
export { createDeadLetterTable, dropDeadLetterTable } from './dead-letters/dead-letter-tables';
export { DeadLetterStore } from './dead-letters/dead-letter-store';
export { DeadLetterRecorderModule, PostgresDeadLetterRecorder } from './dead-letters/postgres-dead-letter-recorder';
export { FilteringRulesCopy } from './filtering-rules-copy';
export { OutboxRelay } from './outbox-relay';
export { type OutboxDelivery, UnitOfWork, type Transaction } from './unit-of-work';
export {
  InjectUnitOfWork,
  migrateServiceDatabase,
  ServiceDatabaseModule,
  unitOfWorkToken,
  type ServiceDatabaseOptions,
} from './service-database.module';
