import { Global, Module } from '@nestjs/common';
import { ClickHouseClient } from '@clickhouse/client';
import { JobRegistryClient } from '@guidepost/contracts-http';
import { ClickHouseModule } from '@guidepost/platform-clickhouse';
import { MessageBus } from '@guidepost/platform-bus';
import { AppConfig } from '@guidepost/platform-config';
import { ServiceDatabaseModule, type UnitOfWork, unitOfWorkToken } from '@guidepost/platform-database';
import { AnalyticsExportConsumer } from './analytics/api/analytics-export.consumer';
import { AnalyticsController } from './analytics/api/analytics.controller';
import { AnalyticsExports } from './analytics/application/analytics-exports.service';
import { AnalyticsQueries } from './analytics/application/analytics-queries.service';
import { AnalyticsStore } from './analytics/application/analytics-store.port';
import { ClickHouseAnalyticsStore } from './analytics/data-access/clickhouse-analytics-store';
import { INGESTION_DATABASE, INGESTION_EVENT_STORE } from './data-access/ingestion-database';
import { EventSinkConsumer } from './events/api/event-sink.consumer';
import { UserEventsController } from './events/api/user-events.controller';
import { AcceptedEventsLog } from './events/application/accepted-events-log.port';
import { EventIntake } from './events/application/event-intake.service';
import { EventStore } from './events/application/event-store.port';
import { EventWrites } from './events/application/event-writes';
import { ClickHouseEventStore } from './events/data-access/clickhouse-event-store.adapter';
import { KafkaAcceptedEvents } from './events/data-access/kafka-accepted-events';
import { OutboxAcceptedEvents } from './events/data-access/outbox-accepted-events';
import { EventTracking } from './events/application/event-tracking.service';
import { EventExportConsumer } from './exports/api/event-export.consumer';
import { EventExportController } from './exports/api/event-export.controller';
import { EventExportService } from './exports/application/event-export.service';
import { FilteringRulesCopyConsumer } from './filtering/api/filtering-rules-copy.consumer';
import { FilteredItems } from './filtering/application/filtered-items';
import { FilteringRules } from './filtering/application/filtering-rules.service';
import { IngestionFilteringRulesCopy } from './filtering/data-access/ingestion-filtering-rules-copy.repository';
import { INGESTION_SCHEMA } from './ingestion-schema';
import { ImportFailuresController } from './imports/api/import-failures.controller';
import { ImportWorkerConsumer } from './imports/api/import-worker.consumer';
import { ImportsController } from './imports/api/imports.controller';
import { ImportBatchWriter } from './imports/application/import-batch-writer';
import { ImportStaging } from './imports/application/import-staging.service';
import { ImportWorker } from './imports/application/import-worker.service';
import { ImportRepository } from './imports/data-access/import.repository';
import { JobEventsConsumer } from './jobs/api/job-events.consumer';
import { InternalJobsController } from './jobs/api/internal-jobs.controller';
import { JobsController } from './jobs/api/jobs.controller';
import { JobMetrics } from './jobs/application/job-metrics';
import { JobRegistry } from './jobs/application/job-registry.service';
import { JobRepository } from './jobs/data-access/job.repository';

/**
 * The ingestion service: the job registry, the event pipeline (track, history, the event store and
 * its sink), bulk imports and exports and its copy of the filtering rules. Global, so that the other
 * services of the same process create jobs through `JobRegistryClient` in process.
 */
@Global()
@Module({
  imports: [ServiceDatabaseModule.forService(INGESTION_DATABASE), ClickHouseModule.forService(INGESTION_EVENT_STORE)],
  controllers: [
    JobsController,
    UserEventsController,
    EventExportController,
    ImportsController,
    ImportFailuresController,
    InternalJobsController,
    AnalyticsController,
  ],
  providers: [
    JobRepository,
    JobMetrics,
    JobRegistry,
    JobEventsConsumer,
    { provide: JobRegistryClient, useExisting: JobRegistry },
    {
      provide: EventStore,
      inject: [ClickHouseClient, AppConfig],
      // Twice the wait on a silent store: the standalone shape's event store runs at idle priority, and a
      // long history may be slow on a busy machine without being stuck.
      useFactory: (client: ClickHouseClient, config: AppConfig) =>
        new ClickHouseEventStore(client, { historyWaitLimitMs: 2 * config.dependencyTimeoutMs }),
    },
    EventWrites,
    EventSinkConsumer,
    // The service's copy of the filtering rules, applied by every intake (track, imports).
    IngestionFilteringRulesCopy,
    FilteringRules,
    FilteringRulesCopyConsumer,
    FilteredItems,
    // Track (group commit into the outbox, or straight to Kafka when the bus is Kafka) and bulk export.
    {
      provide: AcceptedEventsLog,
      inject: [AppConfig, MessageBus, unitOfWorkToken(INGESTION_SCHEMA)],
      useFactory: (config: AppConfig, bus: MessageBus, unitOfWork: UnitOfWork) =>
        config.kafkaBrokers === undefined
          ? new OutboxAcceptedEvents(unitOfWork, config.dependencyTimeoutMs)
          : new KafkaAcceptedEvents(bus, config.dependencyTimeoutMs),
    },
    EventIntake,
    EventTracking,
    EventExportService,
    EventExportConsumer,
    // Bulk imports: staging the upload, the worker that reads it, the failures it keeps.
    ImportRepository,
    ImportStaging,
    ImportBatchWriter,
    ImportWorker,
    ImportWorkerConsumer,
    // Analytics queries over the event store, and the same queries run as export jobs.
    { provide: AnalyticsStore, inject: [ClickHouseClient], useFactory: (client: ClickHouseClient) => new ClickHouseAnalyticsStore(client) },
    AnalyticsQueries,
    AnalyticsExports,
    AnalyticsExportConsumer,
  ],
  exports: [JobRegistryClient],
})
export class IngestionModule {}
