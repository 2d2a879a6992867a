import type { EntityManager } from 'typeorm';
import type { Transaction, UnitOfWork } from '@guidepost/platform-database';
import type { ImportRepository } from '../data-access/import.repository';
import type { RowFailure } from '../domain/row-failure';
import { type BatchToWrite, ImportBatchWriter, isDataError } from './import-batch-writer';

/** What PostgreSQL says of a NUL in JSON text (class 22: the data is at fault). */
const nulRefused = Object.assign(new Error('unsupported Unicode escape sequence'), { code: '22P05' });
const connectionLost = Object.assign(new Error('Connection terminated unexpectedly'), { code: '08006' });

/**
 * A unit of work whose commits fail like PostgreSQL's would: with a data error when a published item
 * is poisoned, or with `failNext` errors first. Committed messages and failures are recorded.
 */
function setUp(failNext: Error[] = []) {
  const published = new Map<string, string[]>();
  const storedFailures: RowFailure[] = [];
  const unitOfWork = {
    run: async (work: (tx: Transaction) => Promise<unknown>) => {
      const emitted = new Map<string, string[]>();
      const upserted: RowFailure[] = [];
      const tx = {
        manager: { upserted } as unknown as EntityManager,
        emit: (_topic: unknown, _key: string, payload: { items: string[] }, id: string) => emitted.set(id, payload.items),
        flush: () => Promise.resolve(),
      } as unknown as Transaction;
      await work(tx);
      const failure = failNext.shift();
      if (failure) throw failure;
      if ([...emitted.values()].some((items) => items.includes('poison'))) throw nulRefused;
      for (const [id, items] of emitted) published.set(id, items);
      storedFailures.push(...upserted);
    },
  } as unknown as UnitOfWork;
  const repository = {
    upsert: (manager: { upserted: RowFailure[] }, _jobId: string, failures: readonly RowFailure[]) => {
      manager.upserted.push(...failures);
      return Promise.resolve();
    },
  } as unknown as ImportRepository;
  const writer = new ImportBatchWriter(repository, unitOfWork);
  const publish = (tx: Transaction, messageId: string, items: readonly string[]) =>
    (tx.emit as unknown as (topic: unknown, key: string, payload: { items: string[] }, id: string) => void)(
      null,
      messageId,
      { items: [...items] },
      messageId,
    );
  return { writer, publish, published, storedFailures };
}

function batchOf(items: string[], failures: RowFailure[] = []): BatchToWrite<string> {
  return { jobId: 'job', messageId: 'job:batch:3', items, lines: items.map((_, index) => 10 + index), failures };
}

describe('ImportBatchWriter', () => {
  it('writes the batch message and its failures in one transaction', async () => {
    const { writer, publish, published, storedFailures } = setUp();
    const failure = { line: 9, field: null, reason: 'is not valid JSON' };
    await expect(writer.write(batchOf(['a', 'b'], [failure]), publish)).resolves.toEqual({ messageIds: ['job:batch:3'], unstorable: [] });
    expect(published).toEqual(new Map([['job:batch:3', ['a', 'b']]]));
    expect(storedFailures).toEqual([failure]);
  });

  it('publishes nothing for a batch without valid rows, but keeps its failures', async () => {
    const { writer, publish, published, storedFailures } = setUp();
    await expect(writer.write(batchOf([], [{ line: 1, field: null, reason: 'x' }]), publish)).resolves.toEqual({
      messageIds: [],
      unstorable: [],
    });
    expect(published.size).toBe(0);
    expect(storedFailures).toHaveLength(1);
  });

  it('splits a batch the database refuses for its data until the rows at fault are alone, and fails only those', async () => {
    const { writer, publish, published, storedFailures } = setUp();
    const items = ['a', 'b', 'poison', 'c', 'd', 'poison', 'e'];
    const written = await writer.write(batchOf(items, [{ line: 1, field: null, reason: 'bad' }]), publish);
    expect(written.unstorable).toEqual([
      { line: 12, field: null, reason: 'could not be stored (unsupported Unicode escape sequence)' },
      { line: 15, field: null, reason: 'could not be stored (unsupported Unicode escape sequence)' },
    ]);
    // Every other row is published exactly once, under ids derived from the batch's.
    expect([...published.values()].flat().sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(written.messageIds).toEqual([...published.keys()]);
    expect(written.messageIds.every((id) => id.startsWith('job:batch:3:'))).toBe(true);
    expect(storedFailures.map((failure) => failure.line)).toEqual([1, 12, 15]);
  });

  it('splits the same way every time, so a repeated run derives the same message ids', async () => {
    const first = setUp();
    const second = setUp();
    const items = ['a', 'poison', 'b', 'c'];
    const one = await first.writer.write(batchOf(items), first.publish);
    const two = await second.writer.write(batchOf(items), second.publish);
    expect(two.messageIds).toEqual(one.messageIds);
  });

  it('tries again when the database itself fails, and gives up after a few attempts', async () => {
    jest.useFakeTimers({ advanceTimers: true });
    try {
      const recovering = setUp([connectionLost]);
      await expect(recovering.writer.write(batchOf(['a']), recovering.publish)).resolves.toEqual({
        messageIds: ['job:batch:3'],
        unstorable: [],
      });
      const down = setUp([connectionLost, connectionLost, connectionLost]);
      await expect(down.writer.write(batchOf(['a']), down.publish)).rejects.toThrow('Connection terminated');
      expect(down.published.size).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('isDataError', () => {
  it('blames the data for PostgreSQL classes 22 and 54 and for a value too deep to serialize', () => {
    expect(isDataError(nulRefused)).toBe(true);
    expect(isDataError({ driverError: { code: '54001' } })).toBe(true);
    expect(isDataError(new RangeError('Maximum call stack size exceeded'))).toBe(true);
  });

  it('blames the database for the rest', () => {
    expect(isDataError(connectionLost)).toBe(false);
    expect(isDataError(new Error('timeout'))).toBe(false);
    expect(isDataError(undefined)).toBe(false);
  });
});
