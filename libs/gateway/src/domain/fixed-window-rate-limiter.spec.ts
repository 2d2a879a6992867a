import { FixedWindowRateLimiter } from './fixed-window-rate-limiter';

describe('FixedWindowRateLimiter', () => {
  let now = 0;
  beforeEach(() => (now = 5_000_000));

  it('allows the limit within one window, counting down what remains, then refuses', () => {
    const limiter = new FixedWindowRateLimiter(3, 1000, () => now);
    expect([1, 2, 3].map(() => limiter.take('acme').remaining)).toEqual([2, 1, 0]);
    // The window opened at 5,000 s ends at 5,001 s since the epoch.
    expect(limiter.take('acme')).toEqual({ allowed: false, limit: 3, remaining: 0, resetSeconds: 1, resetAt: 5_001 });
  });

  it('opens a fresh window once the previous one has ended', () => {
    const limiter = new FixedWindowRateLimiter(1, 1000, () => now);
    expect(limiter.take('acme').allowed).toBe(true);
    now += 999;
    expect(limiter.take('acme').allowed).toBe(false);
    now += 1;
    expect(limiter.take('acme')).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('keeps a separate budget per account', () => {
    const limiter = new FixedWindowRateLimiter(1, 1000, () => now);
    expect(limiter.take('acme').allowed).toBe(true);
    expect(limiter.take('globex').allowed).toBe(true);
    expect(limiter.take('acme').allowed).toBe(false);
  });

  it('reports the reset as whole seconds until the window ends, never less than 1', () => {
    const limiter = new FixedWindowRateLimiter(1, 10_000, () => now);
    limiter.take('acme');
    now += 500;
    expect(limiter.take('acme').resetSeconds).toBe(10);
    now += 8_600;
    expect(limiter.take('acme').resetSeconds).toBe(1);
    now += 899;
    expect(limiter.take('acme')).toMatchObject({ allowed: false, resetSeconds: 1 });
  });
});
