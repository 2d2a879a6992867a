import { PermanentFailure, TransientFailure } from '@guidepost/platform-failures';
import { attemptWithBackoff, backoffDelayMs, HANDLER_RETRY, type RetryPolicy } from './retry';

const FAST: RetryPolicy = { attempts: 4, firstDelayMs: 1, maxDelayMs: 2 };
const notStopping = (): AbortSignal => new AbortController().signal;

describe('handler retries', () => {
  it('waits 250 ms after the first failure, doubling, capped', () => {
    const waits = Array.from({ length: HANDLER_RETRY.attempts - 1 }, (_, index) => backoffDelayMs(HANDLER_RETRY, index + 1));
    expect(waits).toEqual([250, 500, 1000, 2000]);
    expect(backoffDelayMs(HANDLER_RETRY, 10)).toBe(HANDLER_RETRY.maxDelayMs);
    expect(backoffDelayMs(HANDLER_RETRY, 10_000)).toBe(HANDLER_RETRY.maxDelayMs);
  });

  it('is done as soon as a run succeeds, telling of each failure before it', async () => {
    let runs = 0;
    const failures: [number, number | undefined][] = [];
    const outcome = await attemptWithBackoff(() => (++runs < 3 ? Promise.reject(new Error(`run ${runs}`)) : Promise.resolve()), FAST, {
      stopping: notStopping(),
      onFailure: (_error, { attempt, retryInMs }) => failures.push([attempt, retryInMs]),
    });
    expect(outcome).toEqual({ kind: 'done' });
    expect(failures).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });

  it('gives an unrecognised failure up with the last reason once every attempt failed', async () => {
    let runs = 0;
    const outcome = await attemptWithBackoff(() => Promise.reject(new Error(`run ${++runs}`)), FAST, {
      stopping: notStopping(),
      onFailure: () => undefined,
    });
    expect(outcome).toEqual({ kind: 'failed', reason: 'run 4', attempts: 4, failureClass: 'unrecognised' });
  });

  it('gives a permanent failure up at once', async () => {
    let runs = 0;
    const outcome = await attemptWithBackoff(
      () => {
        runs += 1;
        return Promise.reject(new PermanentFailure('cannot be stored'));
      },
      FAST,
      { stopping: notStopping(), onFailure: () => undefined },
    );
    expect(outcome).toEqual({ kind: 'failed', reason: 'cannot be stored', attempts: 1, failureClass: 'permanent' });
    expect(runs).toBe(1);
  });

  it('never gives a transient failure up, however many times it repeats, and does not count it against the attempts', async () => {
    let runs = 0;
    const classes: string[] = [];
    const outcome = await attemptWithBackoff(
      () => {
        runs += 1;
        if (runs <= 50) return Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' }));
        if (runs <= 52) return Promise.reject(new Error('a fluke'));
        return Promise.resolve();
      },
      FAST,
      { stopping: notStopping(), onFailure: (_error, { failureClass }) => classes.push(failureClass) },
    );
    expect(outcome).toEqual({ kind: 'done' });
    expect(classes.filter((c) => c === 'transient')).toHaveLength(50);
    expect(classes.filter((c) => c === 'unrecognised')).toHaveLength(2);
  });

  it('abandons a transient wait once the work is no longer this consumer s (its partition moved)', async () => {
    let owned = true;
    const outcome = await attemptWithBackoff(() => Promise.reject(new TransientFailure('down')), FAST, {
      stopping: notStopping(),
      stillOwned: () => owned,
      onFailure: () => {
        owned = false;
      },
    });
    expect(outcome).toEqual({ kind: 'abandoned' });
  });

  it('abandons when the consumer stops while waiting to retry, without waiting the delay out', async () => {
    const stopping = new AbortController();
    const slow: RetryPolicy = { attempts: 3, firstDelayMs: 60_000, maxDelayMs: 60_000 };
    const started = Date.now();
    const outcome = await attemptWithBackoff(() => Promise.reject(new Error('down')), slow, {
      stopping: stopping.signal,
      onFailure: () => setTimeout(() => stopping.abort(), 5),
    });
    expect(outcome).toEqual({ kind: 'abandoned' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('abandons a run that fails while stopping: the failure may be the shutdown itself', async () => {
    const stopping = new AbortController();
    const failures: number[] = [];
    const outcome = await attemptWithBackoff(
      () => {
        stopping.abort();
        return Promise.reject(new Error('import interrupted by shutdown'));
      },
      FAST,
      { stopping: stopping.signal, onFailure: (_error, { attempt }) => failures.push(attempt) },
    );
    expect(outcome).toEqual({ kind: 'abandoned' });
    expect(failures).toEqual([]);
  });
});
