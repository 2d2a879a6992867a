import { PeriodicTask } from './periodic-task';

describe('PeriodicTask', () => {
  afterEach(() => jest.useRealTimers());

  it('runs one run at a time: asking during a run joins it', async () => {
    let runs = 0;
    let finish: (value: number) => void = () => undefined;
    const task = new PeriodicTask({
      intervalMs: 1_000,
      run: () => new Promise<number>((resolve) => ((runs += 1), (finish = resolve))),
      onFailure: () => -1,
    });
    const [first, second] = [task.runOnce(), task.runOnce()];
    expect(second).toBe(first);
    finish(7);
    await expect(first).resolves.toBe(7);
    expect(runs).toBe(1);
  });

  it('resolves a failed run with what onFailure says, and runs again next time', async () => {
    let runs = 0;
    const failures: unknown[] = [];
    const task = new PeriodicTask({
      intervalMs: 1_000,
      run: () => (++runs === 1 ? Promise.reject(new Error('store down')) : Promise.resolve(3)),
      onFailure: (error) => (failures.push(error), 0),
    });
    await expect(task.runOnce()).resolves.toBe(0);
    await expect(task.runOnce()).resolves.toBe(3);
    expect(failures).toEqual([new Error('store down')]);
  });

  it('runs on its interval once started, and stop waits for the run in hand and ends the runs', async () => {
    jest.useFakeTimers();
    let runs = 0;
    const task = new PeriodicTask({ intervalMs: 1_000, run: () => Promise.resolve(void (runs += 1)), onFailure: () => undefined });
    task.start();
    await jest.advanceTimersByTimeAsync(3_500);
    expect(runs).toBe(3);
    await task.stop();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(runs).toBe(3);
  });
});
