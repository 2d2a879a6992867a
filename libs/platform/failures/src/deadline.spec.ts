import { setTimeout as delay } from 'node:timers/promises';
import { withDeadline } from './deadline';
import { classifyFailure } from './failure-class';

describe('withDeadline', () => {
  it('settles as the work does when it settles in time', async () => {
    await expect(withDeadline(Promise.resolve(7), 1_000, 'the store')).resolves.toBe(7);
    await expect(withDeadline(Promise.reject(new Error('refused')), 1_000, 'the store')).rejects.toThrow('refused');
  });

  it('fails as transient, naming what did not answer, once the limit has passed; a late failure of the work reaches nobody', async () => {
    let failLate: (error: Error) => void = () => undefined;
    const work = new Promise<never>((_resolve, reject) => (failLate = reject));
    const failure: unknown = await withDeadline(work, 20, 'the store').catch((error: unknown) => error);
    expect(String(failure)).toBe('TransientFailure: the store did not answer within 20 ms');
    expect(classifyFailure(failure)).toBe('transient');
    const unhandled = jest.fn();
    process.on('unhandledRejection', unhandled);
    failLate(new Error('gone'));
    await delay(10);
    process.off('unhandledRejection', unhandled);
    expect(unhandled).not.toHaveBeenCalled();
  });
});
