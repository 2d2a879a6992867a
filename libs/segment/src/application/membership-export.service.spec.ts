import { Logger } from '@nestjs/common';
import { JobEventRecorded, MailRequested, type PayloadOf, type SegmentMembershipExportRequested } from '@guidepost/contracts-events';
import { JobRegistryClient, UserProfileDirectory } from '@guidepost/contracts-http';
import { EXPORT_ATTEMPTS, EXPORT_LINK_TTL_SECONDS } from '@guidepost/platform-jobs';
import { MemoryBlobStore } from '@guidepost/platform-blob/testing';
import { loadConfig } from '@guidepost/platform-config';
import type { Transaction, UnitOfWork } from '@guidepost/platform-database';
import type { EntityManager } from 'typeorm';
import type { SegmentMemberRepository } from '../data-access/segment-member.repository';
import type { SegmentRepository } from '../data-access/segment.repository';
import { newSegment } from '../domain/segment';
import { MembershipExportService } from './membership-export.service';

const segment = newSegment('acme', { name: 'Trial users' }, new Date('2026-01-01T00:00:00.000Z'));
const requestedAt = new Date(Date.now() - 1_000).toISOString();

/** 2 500 members, so that the export spans three pages. */
const MEMBERS = Array.from({ length: 2_500 }, (_, index) => `user-${String(index).padStart(4, '0')}`);

function fakeMembers(): SegmentMemberRepository {
  const page = (_account: string, _segment: string, after: string | null, limit: number): Promise<string[]> =>
    Promise.resolve(MEMBERS.filter((id) => after === null || id > after).slice(0, limit));
  return { page } as unknown as SegmentMemberRepository;
}

class FakeProfiles extends UserProfileDirectory {
  requested = 0;
  getProfiles(_accountId: string, userIds: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
    this.requested += userIds.length;
    return Promise.resolve(new Map(userIds.filter((id) => id !== 'user-0001').map((id) => [id, { plan: 'pro' }])));
  }
}

class UnusedJobs extends JobRegistryClient {
  createJob(): never {
    throw new Error('not used by run()');
  }
  abandonJob(): never {
    throw new Error('not used by run()');
  }
}

interface Emitted {
  topic: string;
  key: string;
  payload: unknown;
  id: string | undefined;
}

function setUp(options: { segmentExists?: boolean } = {}) {
  const blobs = new MemoryBlobStore();
  const profiles = new FakeProfiles();
  const segments = { find: () => Promise.resolve(options.segmentExists === false ? null : segment) } as unknown as SegmentRepository;
  const service = new MembershipExportService(segments, fakeMembers(), profiles, blobs, new UnusedJobs(), {} as UnitOfWork, loadConfig({}));
  const emitted: Emitted[] = [];
  const tx: Transaction = {
    manager: {} as EntityManager,
    emit: (topic, key, payload, id) => void emitted.push({ topic: topic.name, key, payload, id }),
    flush: () => Promise.resolve(),
  };
  const request = (overrides: Partial<PayloadOf<typeof SegmentMembershipExportRequested>> = {}) => ({
    accountId: 'acme',
    segmentId: segment.id,
    jobId: 'job-1',
    format: 'json' as const,
    propertyNames: [],
    requestedAt,
    linkBaseUrl: 'https://guidepost.test',
    ...overrides,
  });
  return { service, blobs, profiles, emitted, tx, request };
}

const jobEvents = (emitted: Emitted[]) =>
  emitted
    .filter((message) => message.topic === JobEventRecorded.name)
    .map((message) => message.payload as PayloadOf<typeof JobEventRecorded>);

describe('MembershipExportService.run', () => {
  beforeEach(() => jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined));
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('writes every member as NDJSON and completes with the one-week link, the row count and the runtime', async () => {
    const { service, blobs, profiles, emitted, tx, request } = setUp();
    await service.run(tx, request());

    const file = blobs.files.get('exports/acme/job-1.ndjson');
    expect(file?.contentType).toBe('application/x-ndjson');
    const lines = file!.text.trimEnd().split('\n');
    expect(lines).toHaveLength(2_500);
    expect(lines[0]).toBe('{"user_id":"user-0000"}');
    expect(lines[2_499]).toBe('{"user_id":"user-2499"}');
    expect(profiles.requested).toBe(0);
    expect(blobs.ttls).toEqual([EXPORT_LINK_TTL_SECONDS]);

    const [completed] = jobEvents(emitted);
    expect(completed).toMatchObject({
      jobId: 'job-1',
      accountId: 'acme',
      name: 'Completed',
      attributes: {
        signed_s3_url: 'https://guidepost.test/blobs/exports/acme/job-1.ndjson?signature=s',
        expires_at: '2026-01-08T00:00:00.000Z',
        rows: 2_500,
      },
    });
    expect(completed.attributes['runtime_ms']).toBeGreaterThanOrEqual(1_000);
    expect(emitted.map((message) => message.id)).toEqual(['job-1:Completed']);
  });

  it('writes CSV with the requested properties (empty cells where a member has none) and mails the link', async () => {
    const { service, blobs, emitted, tx, request } = setUp();
    await service.run(tx, request({ format: 'csv', propertyNames: ['plan'], email: 'ops@example.com' }));

    const lines = blobs.files.get('exports/acme/job-1.csv')!.text.split('\n');
    expect(lines.slice(0, 3)).toEqual(['user_id,plan', 'user-0000,pro', 'user-0001,']);
    const mail = emitted.find((message) => message.topic === MailRequested.name);
    expect(mail).toMatchObject({ key: 'job-1', id: 'job-1:mail', payload: { to: ['ops@example.com'] } });
    expect((mail!.payload as { text: string }).text).toContain('https://guidepost.test/blobs/exports/acme/job-1.csv?signature=s');
  });

  it('links a request announced before link bases were recorded on the default base', async () => {
    const { service, emitted, tx, request } = setUp();
    await service.run(tx, request({ linkBaseUrl: undefined }));
    expect(jobEvents(emitted)[0].attributes).toMatchObject({
      signed_s3_url: 'http://127.0.0.1:8080/blobs/exports/acme/job-1.ndjson?signature=s',
    });
  });

  it('sends no mail when no address was given', async () => {
    const { service, emitted, tx, request } = setUp();
    await service.run(tx, request());
    expect(emitted.map((message) => message.topic)).toEqual([JobEventRecorded.name]);
  });

  it('fails the job, with the reason, when the segment was deleted in the meantime', async () => {
    const { service, blobs, emitted, tx, request } = setUp({ segmentExists: false });
    await service.run(tx, request({ email: 'ops@example.com' }));
    expect(blobs.files.size).toBe(0);
    expect(jobEvents(emitted)).toEqual([
      expect.objectContaining({ name: 'Failed', attributes: { reason: expect.stringMatching(/deleted/) } }),
    ]);
    expect(emitted).toHaveLength(1);
  });

  it('retries a failing write, and completes when a retry succeeds', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    const { service, blobs, emitted, tx, request } = setUp();
    blobs.failuresLeft = EXPORT_ATTEMPTS - 1;
    const running = service.run(tx, request());
    await jest.runAllTimersAsync();
    await running;
    expect(jobEvents(emitted).map((event) => event.name)).toEqual(['Completed']);
  });

  it('fails the job with the last error once every attempt failed (never leaves it in progress)', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    const { service, blobs, emitted, tx, request } = setUp();
    blobs.failuresLeft = EXPORT_ATTEMPTS;
    const running = service.run(tx, request());
    await jest.runAllTimersAsync();
    await running;
    const events = jobEvents(emitted);
    expect(events).toEqual([expect.objectContaining({ name: 'Failed' })]);
    expect(events[0].attributes['reason']).toBe(`The export could not be written (${EXPORT_ATTEMPTS} attempts): store unavailable`);
  });
});
