import { applyPublication, publishedAtAfterWrite, type PublicationState } from './publication';

const created = new Date('2024-01-01T00:00:00.000Z');
const firstPublish = new Date('2024-02-01T10:00:00.000Z');
const now = new Date('2024-03-01T12:00:00.000Z');

const unpublishedNever: PublicationState = { published: false, publishedAt: null, updatedAt: created };
const published: PublicationState = { published: true, publishedAt: firstPublish, updatedAt: firstPublish };
const unpublishedBefore: PublicationState = { published: false, publishedAt: firstPublish, updatedAt: firstPublish };

describe('applyPublication (the publish state table)', () => {
  it('publishes an unpublished record, stamping the publish and update times', () => {
    expect(applyPublication(unpublishedNever, 'publish', now)).toEqual({
      changed: true,
      state: { published: true, publishedAt: now, updatedAt: now },
    });
  });

  it('re-stamps the publish time when a record unpublished earlier is published again', () => {
    expect(applyPublication(unpublishedBefore, 'publish', now).state.publishedAt).toBe(now);
  });

  it('leaves an already published record untouched, publish time and update time included', () => {
    expect(applyPublication(published, 'publish', now)).toEqual({ changed: false, state: published });
  });

  it('unpublishes a published record but keeps its last publish time', () => {
    expect(applyPublication(published, 'unpublish', now)).toEqual({
      changed: true,
      state: { published: false, publishedAt: firstPublish, updatedAt: now },
    });
  });

  it('leaves an already unpublished record untouched', () => {
    expect(applyPublication(unpublishedBefore, 'unpublish', now)).toEqual({ changed: false, state: unpublishedBefore });
    expect(applyPublication(unpublishedNever, 'unpublish', now)).toEqual({ changed: false, state: unpublishedNever });
  });

  it('keeps the other fields of the record it is given', () => {
    const record = { ...unpublishedNever, id: 'flow-1', name: 'Welcome' };
    expect(applyPublication(record, 'publish', now).state).toMatchObject({ id: 'flow-1', name: 'Welcome' });
  });
});

describe('publishedAtAfterWrite (admin sets `published` directly)', () => {
  it('is null for a new record written unpublished', () => {
    expect(publishedAtAfterWrite(undefined, false, now)).toBeNull();
  });

  it('is now for a new record written published', () => {
    expect(publishedAtAfterWrite(undefined, true, now)).toBe(now);
  });

  it('keeps the publish time of a record that stays published', () => {
    expect(publishedAtAfterWrite(published, true, now)).toBe(firstPublish);
  });

  it('keeps the last publish time of a record written unpublished', () => {
    expect(publishedAtAfterWrite(published, false, now)).toBe(firstPublish);
  });
});
