import type { Writable } from 'node:stream';
import { Logger } from '@nestjs/common';
import { type BusMessage, JobEventRecorded, MailRequested, type Topic } from '@guidepost/contracts-events';
import type { CreatedJob, Event } from '@guidepost/contracts-http';
import { EXPORT_ATTEMPTS, EXPORT_LINK_TTL_SECONDS } from '@guidepost/platform-jobs';
import { MemoryBlobStore } from '@guidepost/platform-blob/testing';
import { loadConfig } from '@guidepost/platform-config';
import type { Transaction, UnitOfWork } from '@guidepost/platform-database';
import { DomainError } from '@guidepost/platform-errors';
import { MetricsRegistry } from '@guidepost/platform-observability';
import type { EntityManager } from 'typeorm';
import { EventStore, type ExportQuery } from '../../events/application/event-store.port';
import { JobMetrics } from '../../jobs/application/job-metrics';
import type { JobRegistry } from '../../jobs/application/job-registry.service';
import type { JobRepository } from '../../jobs/data-access/job.repository';
import type { ExportRequestedPayload, ExportRequestFields } from './export-request';
import { EventExportService } from './event-export.service';

/** An event store that exports `rows` NDJSON lines, or fails the first `failuresLeft` times. */
class FakeEventStore extends EventStore {
  readonly queries: ExportQuery[] = [];
  failuresLeft = 0;

  constructor(private readonly rows: number) {
    super();
  }

  insert(): Promise<void> {
    return Promise.resolve();
  }

  history(): Promise<Event[]> {
    return Promise.resolve([]);
  }

  async export(query: ExportQuery, output: Writable): Promise<number> {
    this.queries.push(query);
    if (this.failuresLeft > 0) {
      this.failuresLeft -= 1;
      throw new Error('event store unreachable');
    }
    for (let row = 0; row < this.rows; row += 1) {
      if (!output.write(`{"name":"e${row}"}\n`)) await new Promise((resolve) => output.once('drain', resolve));
    }
    output.end();
    return this.rows;
  }
}

/** Stands in for the job registry; remembers the transaction each job was created in. */
class CountingJobs {
  created = 0;
  readonly transactions: (Transaction | undefined)[] = [];
  createJob(_input: unknown, tx?: Transaction): Promise<CreatedJob> {
    this.created += 1;
    this.transactions.push(tx);
    return Promise.resolve({ id: `job-${this.created}`, startedAt: new Date().toISOString() });
  }
}

interface Emitted {
  topic: string;
  key: string;
  payload: unknown;
  id: string | undefined;
}

function recordingTransaction() {
  const emitted: Emitted[] = [];
  const tx: Transaction = {
    manager: {} as EntityManager,
    emit: <T extends Topic>(topic: T, key: string, payload: BusMessage['payload'], id?: string) =>
      void emitted.push({ topic: topic.name, key, payload, id }),
    flush: () => Promise.resolve(),
  };
  return { tx, emitted };
}

function setUp(rows = 3) {
  const events = new FakeEventStore(rows);
  const blobs = new MemoryBlobStore();
  const jobs = new CountingJobs();
  const { tx, emitted } = recordingTransaction();
  const unitOfWork = { run: <R>(work: (tx: Transaction) => Promise<R>) => work(tx) } as unknown as UnitOfWork;
  const metrics = new MetricsRegistry();
  const jobMetrics = new JobMetrics(metrics, {} as JobRepository);
  return {
    service: new EventExportService(events, blobs, jobs as unknown as JobRegistry, unitOfWork, jobMetrics, loadConfig({})),
    events,
    blobs,
    jobs,
    tx,
    emitted,
    metrics,
  };
}

const requested = (overrides: Partial<ExportRequestedPayload> = {}): ExportRequestedPayload => ({
  accountId: 'acme',
  jobId: 'job-1',
  format: 'json',
  conditions: [['name', '==', 'signup']],
  startTime: '2024-03-01T00:00:00.000Z',
  endTime: '2024-04-01T00:00:00.000Z',
  timeZoneMinutes: -240,
  limit: 10,
  offset: 5,
  emails: [],
  requestedAt: new Date(Date.now() - 1_000).toISOString(),
  linkBaseUrl: 'https://guidepost.test',
  ...overrides,
});

const validRequest: ExportRequestFields = { format: 'csv', conditions: [], start_time: '2024-03-01T00:00:00Z', email: 'ops@example.com' };

describe('EventExportService.request', () => {
  it('creates the job and announces the resolved request and its link base under a deterministic id, in one transaction', async () => {
    const { service, emitted, jobs, tx } = setUp();
    const job = await service.request('acme', validRequest, 'https://api.example.test:8443');
    expect(job.id).toBe('job-1');
    expect(jobs.transactions).toEqual([tx]);
    expect(emitted).toEqual([
      {
        topic: 'guidepost.ingestion.event-export-requested.v1',
        key: 'job-1',
        id: 'job-1:export-requested',
        payload: expect.objectContaining({
          accountId: 'acme',
          jobId: 'job-1',
          format: 'csv',
          startTime: '2024-03-01T00:00:00.000Z',
          emails: ['ops@example.com'],
          requestedAt: expect.any(String),
          linkBaseUrl: 'https://api.example.test:8443',
        }),
      },
    ]);
  });

  it.each<[string, Partial<ExportRequestFields>, RegExp]>([
    [
      'a condition outside the grammar',
      {
        conditions: [
          ['name', '==', 'a'],
          ['name', '>', 'b'],
        ],
      },
      /^conditions\[1\]\[1\]: operator ">"/,
    ],
    ['an end before the start', { end_time: '2024-02-01T00:00:00Z' }, /^end_time: /],
  ])('refuses %s before creating anything', async (_case, overrides, detail) => {
    const { service, jobs, emitted } = setUp();
    const refused = service.request('acme', { ...validRequest, ...overrides }, 'https://guidepost.test');
    await expect(refused).rejects.toBeInstanceOf(DomainError);
    await expect(refused).rejects.toThrow(detail);
    expect(jobs.created).toBe(0);
    expect(emitted).toEqual([]);
  });
});

describe('EventExportService.write', () => {
  beforeEach(() => jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined));
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('reads the store as the request asked, as of the request, and stores NDJSON under the job', async () => {
    const { service, events, blobs, metrics } = setUp(2_000);
    const request = requested();
    await service.write(request);

    expect(events.queries).toEqual([
      {
        accountId: 'acme',
        format: 'json',
        conditions: [['name', '==', 'signup']],
        startTime: new Date('2024-03-01T00:00:00.000Z'),
        endTime: new Date('2024-04-01T00:00:00.000Z'),
        timeZoneMinutes: -240,
        limit: 10,
        offset: 5,
        receivedBy: new Date(request.requestedAt),
      },
    ]);
    const file = blobs.files.get('exports/acme/job-1.ndjson')!;
    expect(file.contentType).toBe('application/x-ndjson');
    expect(file.text.trimEnd().split('\n')).toHaveLength(2_000);
    expect(blobs.ttls).toEqual([EXPORT_LINK_TTL_SECONDS]);
    expect(await metrics.getSingleMetricAsString('guidepost_job_rows_total')).toContain(
      'guidepost_job_rows_total{job="Export Events"} 2000',
    );
  });

  it('completes the job with the link, expiry, rows, format and runtime, and mails every address', async () => {
    const { service, blobs, tx, emitted } = setUp(3);
    const report = await service.write(requested({ format: 'csv', emails: ['a@example.com', 'b@example.com'] }));
    expect(emitted).toEqual([]);

    report(tx);
    expect(blobs.files.has('exports/acme/job-1.csv')).toBe(true);
    const [completed, mail] = emitted;
    expect(completed).toMatchObject({
      topic: JobEventRecorded.name,
      id: 'job-1:Completed',
      payload: {
        name: 'Completed',
        attributes: {
          signed_s3_url: 'https://guidepost.test/blobs/exports/acme/job-1.csv?signature=s',
          expires_at: '2026-01-08T00:00:00.000Z',
          rows: 3,
          format: 'csv',
        },
      },
    });
    expect((completed.payload as { attributes: { runtime_ms: number } }).attributes.runtime_ms).toBeGreaterThanOrEqual(1_000);
    expect(mail).toMatchObject({ topic: MailRequested.name, id: 'job-1:mail', payload: { to: ['a@example.com', 'b@example.com'] } });
  });

  it('links a request announced before link bases were recorded on the default base', async () => {
    const { service, tx, emitted } = setUp(1);
    (await service.write(requested({ format: 'csv', linkBaseUrl: undefined })))(tx);
    expect(emitted[0]).toMatchObject({
      payload: { attributes: { signed_s3_url: 'http://127.0.0.1:8080/blobs/exports/acme/job-1.csv?signature=s' } },
    });
  });

  it('sends no mail when no address was given', async () => {
    const { service, tx, emitted } = setUp();
    (await service.write(requested()))(tx);
    expect(emitted.map((message) => message.id)).toEqual(['job-1:Completed']);
  });

  it('fails the job with the reason, never completing it, once every attempt failed', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    const { service, events, tx, emitted } = setUp();
    events.failuresLeft = EXPORT_ATTEMPTS;
    const writing = service.write(requested({ emails: ['a@example.com'] }));
    await jest.runAllTimersAsync();
    (await writing)(tx);
    expect(emitted).toEqual([
      expect.objectContaining({
        id: 'job-1:Failed',
        payload: expect.objectContaining({
          name: 'Failed',
          attributes: { reason: `The export could not be written (${EXPORT_ATTEMPTS} attempts): event store unreachable` },
        }),
      }),
    ]);
  });
});
