import { RecentMessageIds } from './recent-message-ids';

describe('RecentMessageIds', () => {
  it('remembers ids up to its capacity, forgetting the oldest first', () => {
    const recent = new RecentMessageIds(2);
    recent.add('a');
    recent.add('b');
    expect(recent.has('a')).toBe(true);
    recent.add('c');
    expect(recent.has('a')).toBe(false);
    expect(recent.has('b')).toBe(true);
    expect(recent.has('c')).toBe(true);
  });
});
