import { ExpiringCache } from './expiring-cache';

describe('ExpiringCache', () => {
  let now = 0;
  const cache = (maxEntries = 10) => new ExpiringCache<string, number>({ ttlMs: 30_000, maxEntries }, () => now);

  beforeEach(() => (now = 1_000_000));

  it('returns an entry until its time to live has passed', () => {
    const entries = cache();
    entries.set('a', 1);
    now += 29_999;
    expect(entries.get('a')).toBe(1);
    now += 1;
    expect(entries.get('a')).toBeUndefined();
  });

  it('keeps an expired entry for getStale until room is needed', () => {
    const entries = cache(1);
    entries.set('a', 1);
    now += 60_000;
    expect(entries.get('a')).toBeUndefined();
    expect(entries.getStale('a')).toBe(1);
    entries.set('b', 2);
    expect(entries.getStale('a')).toBeUndefined();
    expect(entries.size).toBe(1);
  });

  it('drops the least recently used entry when full', () => {
    const entries = cache(2);
    entries.set('a', 1);
    entries.set('b', 2);
    entries.get('a');
    entries.set('c', 3);
    expect(entries.get('b')).toBeUndefined();
    expect(entries.get('a')).toBe(1);
    expect(entries.get('c')).toBe(3);
    expect(entries.size).toBe(2);
  });

  it('forgets a deleted entry', () => {
    const entries = cache();
    entries.set('a', 1);
    entries.delete('a');
    expect(entries.get('a')).toBeUndefined();
    expect(entries.getStale('a')).toBeUndefined();
  });
});
