import { API_ACTOR, isSegmentId, newSegment, newSegmentId, updateSegment } from './segment';

describe('segment ids', () => {
  it('are 24 random hexadecimal characters', () => {
    const ids = new Set(Array.from({ length: 100 }, newSegmentId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(isSegmentId(id)).toBe(true);
  });

  it.each(['no-such-segment', '0123456789abcdef0123456', '0123456789ABCDEF01234567', '0123456789abcdef012345678', ''])(
    'recognise %j as no segment id',
    (value) => expect(isSegmentId(value)).toBe(false),
  );
});

describe('segment records', () => {
  const created = newSegment('acme', { name: 'Trial users' }, new Date('2026-01-01T00:00:00.000Z'));

  it('start with an empty description, equal timestamps and the api actor', () => {
    expect(created).toMatchObject({ accountId: 'acme', name: 'Trial users', description: '', createdBy: API_ACTOR, updatedBy: API_ACTOR });
    expect(created.updatedAt).toEqual(created.createdAt);
  });

  it('change only the given fields on update', () => {
    const updated = updateSegment(created, { description: 'first 14 days' }, new Date('2026-01-02T00:00:00.000Z'));
    expect(updated).toMatchObject({ name: 'Trial users', description: 'first 14 days', createdAt: created.createdAt });
    expect(updated.updatedAt).toEqual(new Date('2026-01-02T00:00:00.000Z'));
  });

  it('move updated_at strictly forward even within the same millisecond or when the clock steps back', () => {
    expect(updateSegment(created, { name: 'x' }, created.updatedAt).updatedAt.getTime()).toBe(created.updatedAt.getTime() + 1);
    expect(updateSegment(created, { name: 'x' }, new Date(0)).updatedAt.getTime()).toBe(created.updatedAt.getTime() + 1);
  });
});
