import { settlesWithin } from './settles-within';

describe('settlesWithin', () => {
  it('is true when the promise resolves in time, false when the time runs out first', async () => {
    await expect(settlesWithin(Promise.resolve('done'), 1_000)).resolves.toBe(true);
    await expect(settlesWithin(new Promise(() => undefined), 10)).resolves.toBe(false);
  });

  it('throws a rejection on', async () => {
    await expect(settlesWithin(Promise.reject(new Error('exit failed')), 1_000)).rejects.toThrow('exit failed');
  });
});
