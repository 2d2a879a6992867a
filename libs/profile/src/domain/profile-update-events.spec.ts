import { batchesOf, profileUpdateEvent } from './profile-update-events';

describe('profileUpdateEvent', () => {
  it('records the written properties as the attributes of a svc:profile_update of the user', () => {
    const now = new Date('2024-05-01T09:30:00.000Z');
    expect(profileUpdateEvent('e-1', 'u-1', { plan: 'pro' }, now)).toEqual({
      eventId: 'e-1',
      userId: 'u-1',
      name: 'svc:profile_update',
      timestamp: '2024-05-01T09:30:00.000Z',
      attributes: { plan: 'pro' },
      receivedAt: '2024-05-01T09:30:00.000Z',
    });
  });
});

describe('batchesOf', () => {
  it('slices in order, the last slice holding the rest', () => {
    expect(batchesOf([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('gives no slice for nothing and one for exactly one size', () => {
    expect(batchesOf([], 2)).toEqual([]);
    expect(batchesOf([1, 2], 2)).toEqual([[1, 2]]);
  });
});
