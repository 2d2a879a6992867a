import { Logger } from '@nestjs/common';
import { EventExportRequested, type JobEventDraft, type RecordedEvent } from '@guidepost/contracts-events';
import { MemoryBlobStore } from '@guidepost/platform-blob/testing';
import { loadConfig } from '@guidepost/platform-config';
import { InProcessBus, type OutgoingMessage } from '@guidepost/platform-bus';
import { migrateClickHouse } from '@guidepost/platform-clickhouse';
import type { Transaction, UnitOfWork } from '@guidepost/platform-database';
import { MetricsRegistry } from '@guidepost/platform-observability';
import type { EntityManager } from 'typeorm';
import { ClickHouseEventStore } from '../../events/data-access/clickhouse-event-store.adapter';
import { EVENT_STORE_MIGRATIONS } from '../../events/data-access/clickhouse-migrations';
import { chdbClickHouse, type ClickHouseTarget } from '../../events/data-access/clickhouse-targets.spec-cases';
import { JobMetrics } from '../../jobs/application/job-metrics';
import type { JobRegistry } from '../../jobs/application/job-registry.service';
import type { JobRepository } from '../../jobs/data-access/job.repository';
import { EventExportService } from '../application/event-export.service';
import type { ExportRequestedPayload } from '../application/export-request';
import { EventExportConsumer } from './event-export.consumer';

/** The memory an export query may take here: far less than ten events of a megabyte each need. */
const EXPORT_BUDGET_BYTES = 4 * 1024 * 1024;
const RECEIVED_AT = '2024-05-01T00:00:00.000Z';

/**
 * Event exports on the in-process bus, against the real engine: an export too heavy for the store's
 * memory budget ends its job `Failed` with the reason, and the export requested after it is written,
 * instead of waiting behind it while the first is tried again for ever.
 */
describe('EventExportConsumer, on the in-process bus with the chdb engine', () => {
  let target: ClickHouseTarget;
  let events: ClickHouseEventStore;

  beforeAll(async () => {
    target = await chdbClickHouse('guidepost-event-export-');
    await migrateClickHouse(target.client, 'ingestion', EVENT_STORE_MIGRATIONS, { log: () => undefined });
    events = new ClickHouseEventStore(target.client, { historyWaitLimitMs: 5_000, exportQueryMaxMemoryBytes: EXPORT_BUDGET_BYTES });
    const wideAttributes = Object.fromEntries(Array.from({ length: 999 }, (_, index) => [`key_${index}`, 'x'.repeat(1024)]));
    // Months apart, so in parts of their own: the light export never reads a granule of the heavy events.
    await events.insert([
      ...Array.from({ length: 10 }, (_, index) => ({
        accountId: 'heavy',
        event: recorded(`wide-${index}`, '2024-04-01T00:00:00.000Z', wideAttributes),
      })),
      { accountId: 'light', event: recorded('plain', '2024-03-01T00:00:00.000Z', {}) },
    ]);
  }, 60_000);

  afterAll(() => target.release());

  beforeEach(() => jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it("fails the export too heavy for the store at once with the reason, and writes the next account's export", async () => {
    const { bus, reported } = wire(events);
    await bus.publish([exportRequested('heavy'), exportRequested('light')]);
    expect(reported.get('heavy')).toEqual([
      {
        name: 'Failed',
        attributes: {
          reason: expect.stringMatching(
            /^The export could not be written \(1 attempts\): the exported events need more than the 4 MiB of memory an export may use/,
          ),
        },
      },
    ]);
    expect(reported.get('light')).toEqual([{ name: 'Completed', attributes: expect.objectContaining({ rows: 1, format: 'json' }) }]);
  });
});

function recorded(eventId: string, timestamp: string, attributes: Record<string, unknown>): RecordedEvent {
  return { eventId, userId: 'u1', name: 'viewed', timestamp, attributes, receivedAt: RECEIVED_AT };
}

function exportRequested(accountId: string): OutgoingMessage {
  const payload: ExportRequestedPayload = {
    accountId,
    jobId: `${accountId}-job`,
    format: 'json',
    conditions: [],
    startTime: '2024-01-01T00:00:00.000Z',
    timeZoneMinutes: 0,
    limit: 1_000,
    offset: 0,
    emails: [],
    requestedAt: RECEIVED_AT,
  };
  return {
    id: `${accountId}-job:export-requested`,
    topic: EventExportRequested.name,
    key: payload.jobId,
    payload,
    occurredAt: RECEIVED_AT,
  };
}

/** The consumer on an in-process bus, with the job events each account's export reported. */
function wire(events: ClickHouseEventStore) {
  const reported = new Map<string, Pick<JobEventDraft, 'name' | 'attributes'>[]>();
  const tx: Transaction = {
    manager: {} as EntityManager,
    emit: (_topic, _key, payload) => {
      const { accountId, name, attributes } = payload as JobEventDraft & { accountId: string };
      reported.set(accountId, [...(reported.get(accountId) ?? []), { name, attributes }]);
    },
    flush: () => Promise.resolve(),
  };
  const unitOfWork = {
    runOnce: <R>(_group: string, _id: string, work: (tx: Transaction) => Promise<R>) => work(tx),
  } as unknown as UnitOfWork;
  const jobMetrics = new JobMetrics(new MetricsRegistry(), {} as JobRepository);
  const service = new EventExportService(events, new MemoryBlobStore(), {} as JobRegistry, unitOfWork, jobMetrics, loadConfig({}));
  const bus = new InProcessBus();
  new EventExportConsumer(bus, service, unitOfWork).onModuleInit();
  return { bus, reported };
}
