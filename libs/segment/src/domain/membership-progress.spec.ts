import { recordChunkApplied, type MembershipProgress } from './membership-progress';

const submittedAt = new Date('2026-01-01T00:00:00.000Z');
const at = (ms: number): Date => new Date(submittedAt.getTime() + ms);
const fresh = (chunkCount: number): MembershipProgress => ({ chunkCount, chunksApplied: 0, idsApplied: 0, submittedAt, finishedAt: null });

describe('recordChunkApplied', () => {
  it('announces Ingesting with the first chunk, nothing in between, Completed with the last', () => {
    const first = recordChunkApplied(fresh(3), 5_000, at(10));
    expect(first.events).toEqual([{ name: 'Ingesting', timestamp: at(10).toISOString(), attributes: {} }]);
    expect(first.progress).toMatchObject({ chunksApplied: 1, idsApplied: 5_000, finishedAt: null });

    const second = recordChunkApplied(first.progress, 5_000, at(20));
    expect(second.events).toEqual([]);
    expect(second.progress).toMatchObject({ chunksApplied: 2, idsApplied: 10_000, finishedAt: null });

    const last = recordChunkApplied(second.progress, 42, at(1_234));
    expect(last.events).toEqual([
      {
        name: 'Completed',
        timestamp: at(1_234).toISOString(),
        attributes: { ingestions_completed: 10_042, ingestions_failed: 0, requests_failed: 0, runtime_ms: 1_234 },
      },
    ]);
    expect(last.progress).toMatchObject({ chunksApplied: 3, idsApplied: 10_042, finishedAt: at(1_234) });
  });

  it('completes a one-chunk change at once, after announcing Ingesting', () => {
    const step = recordChunkApplied(fresh(1), 3, at(5));
    expect(step.events.map((event) => event.name)).toEqual(['Ingesting', 'Completed']);
    expect(step.events[1].attributes).toMatchObject({ ingestions_completed: 3, runtime_ms: 5 });
    expect(step.progress.finishedAt).toEqual(at(5));
  });

  it('never reports a negative runtime when clocks disagree', () => {
    const step = recordChunkApplied(fresh(1), 1, at(-50));
    expect(step.events[1].attributes['runtime_ms']).toBe(0);
  });

  it('refuses a chunk after the change finished, so a job cannot complete twice', () => {
    const done = recordChunkApplied(fresh(1), 1, at(1)).progress;
    expect(() => recordChunkApplied(done, 1, at(2))).toThrow('finished');
  });
});
