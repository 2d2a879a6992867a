import { DomainError } from '@guidepost/platform-errors';
import {
  applyPublication,
  assertStateFollowsPublished,
  lifecycleStateOf,
  publishedAtAfterWrite,
  type PublicationState,
} from './publication';

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
      record: { published: true, publishedAt: now, updatedAt: now },
    });
  });

  it('re-stamps the publish time when a record unpublished earlier is published again', () => {
    expect(applyPublication(unpublishedBefore, 'publish', now).record.publishedAt).toBe(now);
  });

  it('leaves an already published record untouched, publish time and update time included', () => {
    expect(applyPublication(published, 'publish', now)).toEqual({ changed: false, record: published });
  });

  it('unpublishes a published record but keeps its last publish time', () => {
    expect(applyPublication(published, 'unpublish', now)).toEqual({
      changed: true,
      record: { published: false, publishedAt: firstPublish, updatedAt: now },
    });
  });

  it('leaves an already unpublished record untouched', () => {
    expect(applyPublication(unpublishedBefore, 'unpublish', now)).toEqual({ changed: false, record: unpublishedBefore });
    expect(applyPublication(unpublishedNever, 'unpublish', now)).toEqual({ changed: false, record: unpublishedNever });
  });

  it('keeps the other fields of the record it is given', () => {
    const record = { ...unpublishedNever, id: 'flow-1', name: 'Welcome' };
    expect(applyPublication(record, 'publish', now).record).toMatchObject({ id: 'flow-1', name: 'Welcome' });
  });
});

describe('the lifecycle label (state) under publish and unpublish', () => {
  const draft = { ...unpublishedNever, state: 'DRAFT' };

  it('becomes PUBLISHED on publish and DRAFT on unpublish', () => {
    const published = applyPublication(draft, 'publish', now).record;
    expect(published).toMatchObject({ published: true, state: 'PUBLISHED' });
    expect(applyPublication(published, 'unpublish', now).record).toMatchObject({ published: false, state: 'DRAFT' });
  });

  it('keeps an unpublished label of its own (ARCHIVED) while a publish repeats nothing', () => {
    const archived = { ...unpublishedBefore, state: 'ARCHIVED' };
    expect(applyPublication(archived, 'unpublish', now)).toEqual({ changed: false, record: archived });
    expect(applyPublication(archived, 'publish', now).record.state).toBe('PUBLISHED');
  });

  it('adds no label to a record without one (flows)', () => {
    expect(applyPublication(unpublishedNever, 'publish', now).record).not.toHaveProperty('state');
  });

  it('lifecycleStateOf: PUBLISHED while published; an unpublished record keeps its label, DRAFT in place of PUBLISHED or none', () => {
    expect(lifecycleStateOf(true, undefined)).toBe('PUBLISHED');
    expect(lifecycleStateOf(true, 'DRAFT')).toBe('PUBLISHED');
    expect(lifecycleStateOf(false, undefined)).toBe('DRAFT');
    expect(lifecycleStateOf(false, 'PUBLISHED')).toBe('DRAFT');
    expect(lifecycleStateOf(false, 'ARCHIVED')).toBe('ARCHIVED');
  });
});

describe('assertStateFollowsPublished (a written record)', () => {
  const refusal = (input: { published?: boolean; state?: string }) => {
    try {
      assertStateFollowsPublished(input);
      return 'accepted';
    } catch (error) {
      if (error instanceof DomainError) return error.detail;
      throw error;
    }
  };

  it('accepts a label that agrees with published, or none', () => {
    expect(refusal({})).toBe('accepted');
    expect(refusal({ published: true })).toBe('accepted');
    expect(refusal({ published: true, state: 'PUBLISHED' })).toBe('accepted');
    expect(refusal({ state: 'DRAFT' })).toBe('accepted');
    expect(refusal({ published: false, state: 'ARCHIVED' })).toBe('accepted');
  });

  it('refuses a label that contradicts published, naming the field and saying why', () => {
    expect(refusal({ state: 'PUBLISHED' })).toBe('state: can be PUBLISHED only when published is true');
    expect(refusal({ published: true, state: 'DRAFT' })).toBe("state: must be PUBLISHED (or left out) when published is true, not 'DRAFT'");
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
