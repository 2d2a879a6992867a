import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { EXPERIENCE_KINDS, studioDocumentSchema, type StudioDocumentKind } from '@guidepost/contracts-http';
import type { StudioDocumentRecord } from './content-records';
import { toPublicStudioDocument } from './public-shapes';
import { studioDocumentRecordOf } from './record-writes';

const PUBLIC_URL = 'https://guidepost.example.com';
const now = new Date('2024-06-01T12:00:00.000Z');
const earlier = new Date('2024-01-01T08:00:00.456Z');

/** What the web studio sends: its own fields, some Guidepost knows nothing of. */
const studioFields = {
  name: 'Home launchpad',
  type: 'launchpad',
  account_id: 'studio-account',
  app_id: 'app-7',
  platform: 'web',
  frequency: 'every_time',
  steps: [{ id: 's1', content: { html: '<p>Hi</p>' } }],
  unknown_studio_field: { nested: [1, 'two', null] },
};

const kindAt = (collection: string) => EXPERIENCE_KINDS.find((kind) => kind.collection === collection) as StudioDocumentKind;

describe('studioDocumentRecordOf', () => {
  it('keeps every field of the studio as given, takes the managed ones out of the document and drops the derived url', () => {
    const record = studioDocumentRecordOf(
      'launchpads',
      'acme',
      {
        id: 'lp',
        ...studioFields,
        published: true,
        state: 'PUBLISHED',
        created_at: earlier.getTime(),
        created_by: 'ana',
        updated_by: 'bo',
        // As a document read from the public API carries it: the studio's free-form keys let it through.
        ...{ url: 'https://studio.example.com/lp' },
      },
      undefined,
      now,
    );
    expect(record).toEqual({
      accountId: 'acme',
      kind: 'launchpads',
      id: 'lp',
      name: 'Home launchpad',
      published: true,
      publishedAt: now,
      state: 'PUBLISHED',
      createdAt: earlier,
      updatedAt: now,
      createdBy: 'ana',
      updatedBy: 'bo',
      document: studioFields,
    });
  });

  it('keeps the lifecycle label in step with published: PUBLISHED, else the label written, else DRAFT', () => {
    const write = (input: { published?: boolean; state?: string }) =>
      studioDocumentRecordOf('checklists', 'acme', { id: 'c', name: 'C', ...input }, undefined, now).state;
    expect(write({ published: true })).toBe('PUBLISHED');
    expect(write({})).toBe('DRAFT');
    expect(write({ state: 'ARCHIVED' })).toBe('ARCHIVED');
  });

  it('defaults the authors as for every content record, keeping the creator of the stored record', () => {
    const unsaid = studioDocumentRecordOf('nps', 'acme', { id: 'n', name: 'N' }, undefined, earlier);
    expect(unsaid).toMatchObject({ createdBy: 'guidepost-admin', updatedBy: 'guidepost-admin' });
    const existing = studioDocumentRecordOf(
      'nps',
      'acme',
      { id: 'n', name: 'N', created_by: 'ana', updated_by: 'ana' },
      undefined,
      earlier,
    );
    const rewritten = studioDocumentRecordOf('nps', 'acme', { id: 'n', name: 'N2' }, existing, now);
    expect(rewritten).toMatchObject({ createdBy: 'ana', updatedBy: 'guidepost-admin' });
    expect(studioDocumentRecordOf('nps', 'acme', { id: 'n', name: 'N3', updated_by: 'bo' }, rewritten, now)).toMatchObject({
      createdBy: 'ana',
      updatedBy: 'bo',
    });
  });

  it('keeps the creation time and the last publish time of the stored record when they are not given', () => {
    const existing = studioDocumentRecordOf('banners', 'acme', { id: 'b', name: 'B', published: true }, undefined, earlier);
    const rewritten = studioDocumentRecordOf('banners', 'acme', { id: 'b', name: 'B2', published: true }, existing, now);
    expect(rewritten).toMatchObject({ createdAt: earlier, publishedAt: earlier, updatedAt: now, document: { name: 'B2' } });
    const unpublished = studioDocumentRecordOf('banners', 'acme', { id: 'b', name: 'B2' }, existing, now);
    expect(unpublished).toMatchObject({ published: false, publishedAt: earlier });
  });
});

describe('toPublicStudioDocument', () => {
  const record: StudioDocumentRecord = {
    accountId: 'acme',
    kind: 'launchpads',
    id: 'lp',
    name: studioFields.name,
    published: false,
    publishedAt: earlier,
    state: 'ARCHIVED',
    createdAt: earlier,
    updatedAt: now,
    createdBy: 'ana',
    updatedBy: 'bo',
    document: studioFields,
  };
  const ajv = addFormats(new Ajv({ strict: false }));

  it('answers epoch milliseconds for every kind, checklists included, as its schema says', () => {
    for (const collection of ['launchpads', 'banners', 'checklists', 'flows-v2', 'embeds', 'nps']) {
      const output = toPublicStudioDocument({ ...record, kind: collection }, PUBLIC_URL);
      expect(output).toMatchObject({ published_at: earlier.getTime(), created_at: earlier.getTime(), updated_at: now.getTime() });
      expect(ajv.validate(studioDocumentSchema(kindAt(collection)), output)).toBe(true);
    }
  });

  it('gives back the studio document unchanged beside the managed fields, and null for a record never published', () => {
    const output = toPublicStudioDocument({ ...record, publishedAt: null }, PUBLIC_URL);
    const { id, published, published_at, state, created_at, updated_at, created_by, updated_by, url, ...rest } = output;
    expect(rest).toEqual(studioFields);
    expect({ id, published, published_at, state, created_at, updated_at, created_by, updated_by, url }).toEqual({
      id: 'lp',
      published: false,
      published_at: null,
      state: 'ARCHIVED',
      created_at: earlier.getTime(),
      updated_at: now.getTime(),
      created_by: 'ana',
      updated_by: 'bo',
      url: `${PUBLIC_URL}/v2/accounts/acme/launchpads/lp`,
    });
  });

  it("links each record under its kind's path, the id encoded", () => {
    for (const collection of ['launchpads', 'banners', 'checklists', 'flows-v2', 'embeds', 'nps']) {
      const output = toPublicStudioDocument({ ...record, kind: collection, id: 'a b/c' }, PUBLIC_URL);
      expect(output['url']).toBe(`${PUBLIC_URL}/v2/accounts/acme/${collection}/a%20b%2Fc`);
    }
  });
});
