import { FailureTally } from './failure-tally';

describe('FailureTally', () => {
  const options = { failures: 3, windowMs: 60_000, coolDownMs: 300_000, maxSubjects: 100 };
  let now: number;
  let tally: FailureTally;

  beforeEach(() => {
    now = 1_000_000;
    tally = new FailureTally(options, () => now);
  });

  it('throttles a subject for the cool-down once it has failed enough within its window', () => {
    expect([tally.fail('a'), tally.fail('a')]).toEqual([false, false]);
    expect(tally.throttledFor('a')).toBe(0);
    expect(tally.fail('a')).toBe(true);
    expect(tally.throttledFor('a')).toBe(300_000);
    expect(tally.throttledFor('b')).toBe(0);
    now += 299_999;
    expect(tally.throttledFor('a')).toBe(1);
    now += 1;
    expect(tally.throttledFor('a')).toBe(0);
  });

  it('opens a fresh window after the last one ended', () => {
    tally.fail('a');
    tally.fail('a');
    now += 60_000;
    expect(tally.fail('a')).toBe(false);
    expect(tally.throttledFor('a')).toBe(0);
  });

  it('neither extends nor ends a cool-down with failures during it', () => {
    for (let failure = 0; failure < 3; failure += 1) tally.fail('a');
    now += 120_000;
    expect(tally.fail('a')).toBe(false);
    expect(tally.throttledFor('a')).toBe(180_000);
    now += 180_000;
    expect(tally.fail('a')).toBe(false);
    expect(tally.throttledFor('a')).toBe(0);
  });

  it('remembers at most maxSubjects, however many subjects fail', () => {
    for (let subject = 0; subject < 10_000; subject += 1) tally.fail(`198.51.${subject >> 8}.${subject & 255}`);
    expect(tally.size).toBe(100);
  });
});
