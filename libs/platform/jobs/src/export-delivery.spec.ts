import type { Writable } from 'node:stream';
import { Logger } from '@nestjs/common';
import type { BusMessage, Topic } from '@guidepost/contracts-events';
import type { Transaction } from '@guidepost/platform-database';
import type { EntityManager } from 'typeorm';
import {
  EXPORT_ATTEMPTS,
  EXPORT_LINK_TTL_SECONDS,
  exportBlobKey,
  reportExportCompleted,
  reportExportFailed,
  storeExport,
  storeExportWithRetries,
} from './export-delivery';
import { MemoryBlobStore } from '@guidepost/platform-blob/testing';

/** Writes `rows` lines, waiting for the stream to drain as a well-behaved writer does. */
const linesWriter = (rows: number) => async (output: Writable) => {
  for (let row = 0; row < rows; row += 1) {
    if (!output.write(`{"row":${row}}\n`)) await new Promise((resolve) => output.once('drain', resolve));
  }
  return rows;
};
const FILE = { key: 'exports/acme/job-1.ndjson', contentType: 'application/x-ndjson', linkBaseUrl: 'https://api.example.test:8443' };

describe('exportBlobKey', () => {
  it('files an export under its account and job', () => {
    expect(exportBlobKey('acme', 'job_1-a', 'ndjson')).toBe('exports/acme/job_1-a.ndjson');
  });

  it.each(['../etc', 'a/b', 'with space', 'acme.eu', 'ünïcode', ''])('replaces the id %j by a hash that stays in its folder', (id) => {
    const key = exportBlobKey(id, 'job', 'csv');
    expect(key).toMatch(/^exports\/[0-9a-f]{64}\/job\.csv$/);
    expect(exportBlobKey(id, 'job', 'csv')).toBe(key);
  });

  it('keeps different accounts apart', () => {
    expect(exportBlobKey('a.b', 'job', 'csv')).not.toBe(exportBlobKey('a/b', 'job', 'csv'));
  });
});

describe('storeExport', () => {
  it('streams what the writer writes into the store and links it for one week, on the base of the request', async () => {
    const blobs = new MemoryBlobStore();
    const artifact = await storeExport(blobs, FILE, linesWriter(50_000));
    expect(artifact).toEqual({
      url: 'https://api.example.test:8443/blobs/exports/acme/job-1.ndjson?signature=s',
      expiresAt: '2026-01-08T00:00:00.000Z',
      rows: 50_000,
    });
    const file = blobs.files.get(FILE.key)!;
    expect(file.contentType).toBe('application/x-ndjson');
    expect(file.text.split('\n')).toHaveLength(50_001);
    expect(blobs.ttls).toEqual([EXPORT_LINK_TTL_SECONDS]);
  });

  it('accepts a writer that ends the stream itself', async () => {
    const blobs = new MemoryBlobStore();
    await storeExport(blobs, FILE, async (output) => {
      output.end('one\n');
      return Promise.resolve(1);
    });
    expect(blobs.files.get(FILE.key)!.text).toBe('one\n');
  });

  it('fails, storing nothing, when the writer fails', async () => {
    const blobs = new MemoryBlobStore();
    const failing = storeExport(blobs, FILE, async (output) => {
      output.write('partial\n');
      return Promise.reject(new Error('event store unreachable'));
    });
    await expect(failing).rejects.toThrow('event store unreachable');
    expect(blobs.files.size).toBe(0);
  });

  it('fails when the store fails, even while the writer waits for the stream to drain', async () => {
    const blobs = new MemoryBlobStore();
    blobs.failuresLeft = 1;
    await expect(storeExport(blobs, FILE, linesWriter(100_000))).rejects.toThrow('store unavailable');
  });
});

describe('storeExportWithRetries', () => {
  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('succeeds when a retry succeeds', async () => {
    const blobs = new MemoryBlobStore();
    blobs.failuresLeft = EXPORT_ATTEMPTS - 1;
    const storing = storeExportWithRetries(blobs, FILE, linesWriter(3));
    await jest.runAllTimersAsync();
    await expect(storing).resolves.toMatchObject({ rows: 3 });
  });

  it('gives the last error as the reason once every attempt failed', async () => {
    const blobs = new MemoryBlobStore();
    blobs.failuresLeft = EXPORT_ATTEMPTS;
    const storing = storeExportWithRetries(blobs, FILE, linesWriter(3));
    await jest.runAllTimersAsync();
    await expect(storing).resolves.toEqual({ reason: `The export could not be written (${EXPORT_ATTEMPTS} attempts): store unavailable` });
  });
});

describe('reporting an export', () => {
  const job = { jobId: 'job-1', accountId: 'acme' };
  const artifact = { url: 'https://guidepost.test/blobs/x?signature=s', expiresAt: '2026-01-08T00:00:00.000Z', rows: 3 };

  function recordingTransaction() {
    const emitted: { topic: string; key: string; payload: unknown; id: string | undefined }[] = [];
    const tx: Transaction = {
      manager: {} as EntityManager,
      emit: <T extends Topic>(topic: T, key: string, payload: BusMessage['payload'], id?: string) =>
        void emitted.push({ topic: topic.name, key, payload, id }),
      flush: () => Promise.resolve(),
    };
    return { tx, emitted };
  }

  it('completes the job with the link, its expiry, the rows, extra attributes and the runtime, and mails the link', () => {
    const { tx, emitted } = recordingTransaction();
    reportExportCompleted(tx, job, {
      artifact,
      requestedAt: new Date('2026-01-01T00:00:00.000Z'),
      finishedAt: new Date('2026-01-01T00:00:02.500Z'),
      attributes: { format: 'csv' },
      mail: { to: ['a@example.com', 'b@example.com'], subject: 'Event export ready', what: 'The event export' },
    });
    expect(emitted).toEqual([
      {
        topic: 'guidepost.jobs.job-event-recorded.v1',
        key: 'job-1',
        id: 'job-1:Completed',
        payload: {
          jobId: 'job-1',
          accountId: 'acme',
          name: 'Completed',
          timestamp: '2026-01-01T00:00:02.500Z',
          attributes: { signed_s3_url: artifact.url, expires_at: artifact.expiresAt, rows: 3, format: 'csv', runtime_ms: 2_500 },
        },
      },
      {
        topic: 'guidepost.mail.mail-requested.v1',
        key: 'job-1',
        id: 'job-1:mail',
        payload: {
          to: ['a@example.com', 'b@example.com'],
          subject: 'Event export ready',
          text: `The event export (3 rows) is ready:\n\n${artifact.url}\n\nThe link expires at ${artifact.expiresAt}.`,
        },
      },
    ]);
  });

  it('sends no mail without addresses', () => {
    const { tx, emitted } = recordingTransaction();
    const finishedAt = new Date();
    reportExportCompleted(tx, job, { artifact, requestedAt: finishedAt, finishedAt, mail: { to: [], subject: 's', what: 'w' } });
    expect(emitted.map((message) => message.id)).toEqual(['job-1:Completed']);
  });

  it('fails the job with the reason', () => {
    const { tx, emitted } = recordingTransaction();
    reportExportFailed(tx, job, 'The event store is unreachable', new Date('2026-01-01T00:00:00.000Z'));
    expect(emitted).toEqual([
      expect.objectContaining({
        id: 'job-1:Failed',
        payload: expect.objectContaining({ name: 'Failed', attributes: { reason: 'The event store is unreachable' } }),
      }),
    ]);
  });
});
