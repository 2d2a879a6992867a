import type { ExperienceRecord, FlowRecord } from './content-records';
import { experienceRecordOf, flowRecordOf, tagRecordOf } from './record-writes';

const now = new Date('2024-06-01T12:00:00.000Z');
const earlier = new Date('2024-01-01T08:00:00.000Z');

const stored: FlowRecord = {
  accountId: 'acme',
  id: 'tour',
  name: 'Old name',
  published: true,
  publishedAt: earlier,
  frequency: 'every_time',
  tagIds: ['a'],
  createdAt: earlier,
  updatedAt: earlier,
  createdBy: 'ana',
  updatedBy: 'ana',
};

describe('flowRecordOf', () => {
  it('fills the defaults of a new flow from only id and name', () => {
    expect(flowRecordOf('acme', { id: 'tour', name: 'Tour' }, undefined, now)).toEqual({
      accountId: 'acme',
      id: 'tour',
      name: 'Tour',
      published: false,
      publishedAt: null,
      frequency: 'once',
      tagIds: [],
      createdAt: now,
      updatedAt: now,
      createdBy: 'guidepost-admin',
      updatedBy: 'guidepost-admin',
    });
  });

  it('keeps the creation time and creator of an existing flow and updates the rest', () => {
    const written = flowRecordOf('acme', { id: 'tour', name: 'New name', published: true }, stored, now);
    expect(written).toMatchObject({ name: 'New name', createdAt: earlier, createdBy: 'ana', updatedAt: now, updatedBy: 'guidepost-admin' });
  });

  it('keeps the publish time of a flow that stays published, and stamps one for a newly published flow', () => {
    expect(flowRecordOf('acme', { id: 'tour', name: 'T', published: true }, stored, now).publishedAt).toBe(earlier);
    expect(flowRecordOf('acme', { id: 'new', name: 'T', published: true }, undefined, now).publishedAt).toBe(now);
  });

  it('keeps the last publish time when an existing flow is written unpublished', () => {
    expect(flowRecordOf('acme', { id: 'tour', name: 'T' }, stored, now)).toMatchObject({ published: false, publishedAt: earlier });
  });

  it('takes explicit times in either input form', () => {
    const written = flowRecordOf(
      'acme',
      {
        id: 'tour',
        name: 'T',
        published: true,
        published_at: '2023-03-03T03:03:03Z',
        created_at: 1_600_000_000_000,
        updated_at: '2023-04-04T00:00:00+02:00',
      },
      stored,
      now,
    );
    expect(written.publishedAt).toEqual(new Date('2023-03-03T03:03:03Z'));
    expect(written.createdAt).toEqual(new Date(1_600_000_000_000));
    expect(written.updatedAt).toEqual(new Date('2023-04-03T22:00:00Z'));
  });

  it('never leaves a published flow without a publish time', () => {
    expect(flowRecordOf('acme', { id: 'new', name: 'T', published: true, published_at: null }, undefined, now).publishedAt).toBe(now);
    expect(flowRecordOf('acme', { id: 'tour', name: 'T', published: false, published_at: null }, stored, now).publishedAt).toBeNull();
  });

  it('keeps each tag id once', () => {
    expect(flowRecordOf('acme', { id: 'tour', name: 'T', tag_ids: ['a', 'b', 'a'] }, undefined, now).tagIds).toEqual(['a', 'b']);
  });
});

describe('experienceRecordOf', () => {
  it('defaults a pin to web/persistent and a mobile experience to ios/mobile, both in DRAFT', () => {
    expect(experienceRecordOf('pin', 'acme', { id: 'p', name: 'P' }, undefined, now)).toMatchObject({
      kind: 'pin',
      platform: 'web',
      type: 'persistent',
      state: 'DRAFT',
      appId: 'acme',
      previewUrl: null,
      lockedForLocalization: false,
      theme: null,
      traits: [],
      steps: [],
    });
    expect(experienceRecordOf('mobile', 'acme', { id: 'm', name: 'M' }, undefined, now)).toMatchObject({
      kind: 'mobile',
      platform: 'ios',
      type: 'mobile',
      state: 'DRAFT',
    });
  });

  it('labels a published experience PUBLISHED and keeps an unpublished label of its own', () => {
    expect(experienceRecordOf('pin', 'acme', { id: 'p', name: 'P', published: true }, undefined, now).state).toBe('PUBLISHED');
    expect(experienceRecordOf('mobile', 'acme', { id: 'm', name: 'M', state: 'ARCHIVED' }, undefined, now).state).toBe('ARCHIVED');
  });

  it('completes steps from their position and the record, with times in milliseconds', () => {
    const record = experienceRecordOf(
      'pin',
      'acme',
      {
        id: 'p',
        name: 'P',
        created_by: 'ana',
        steps: [{ id: 's1' }, { id: 's2', index: 7, type: 'group', updatedAt: '2024-01-01T00:00:00Z' }],
      },
      undefined,
      now,
    );
    expect(record.steps).toEqual([
      {
        id: 's1',
        index: 0,
        name: null,
        type: 'tooltip',
        parentId: null,
        children: [],
        actions: {},
        content: null,
        contentType: null,
        rows: [],
        traits: [],
        createdAt: now.getTime(),
        updatedAt: now.getTime(),
        createdBy: 'ana',
        updatedBy: 'guidepost-admin',
      },
      expect.objectContaining({ id: 's2', index: 7, type: 'group', updatedAt: Date.parse('2024-01-01T00:00:00Z') }),
    ]);
  });

  it('keeps the creation facts of an existing record', () => {
    const existing = experienceRecordOf('pin', 'acme', { id: 'p', name: 'P', created_by: 'ana' }, undefined, earlier);
    const rewritten: ExperienceRecord = experienceRecordOf('pin', 'acme', { id: 'p', name: 'P2' }, existing, now);
    expect(rewritten).toMatchObject({ createdAt: earlier, createdBy: 'ana', updatedAt: now, name: 'P2' });
  });
});

describe('tagRecordOf', () => {
  it('fills defaults for a new tag and keeps the creation facts of an existing one', () => {
    const created = tagRecordOf('acme', { id: 't', name: 'T' }, undefined, earlier);
    expect(created).toEqual({
      accountId: 'acme',
      id: 't',
      name: 'T',
      createdAt: earlier,
      updatedAt: earlier,
      createdBy: 'guidepost-admin',
      updatedBy: 'guidepost-admin',
    });
    expect(tagRecordOf('acme', { id: 't', name: 'T2', updated_by: 'bo' }, created, now)).toMatchObject({
      name: 'T2',
      createdAt: earlier,
      updatedAt: now,
      updatedBy: 'bo',
    });
  });
});
