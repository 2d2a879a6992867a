import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { ExperienceSchema, FlowSchema, TagSchema, type Step } from '@guidepost/contracts-http';
import type { ExperienceRecord, FlowRecord, TagRecord } from './content-records';
import { resourceUrl, tagMap, toPublicExperience, toPublicFlow, toPublicTag } from './public-shapes';

const PUBLIC_URL = 'https://guidepost.example.com';
const createdAt = new Date('2024-05-01T09:30:00.123Z');
const updatedAt = new Date('2024-05-02T10:00:59.999Z');
const publishedAt = new Date('2024-05-03T11:15:00.456Z');

const flow: FlowRecord = {
  accountId: 'acme',
  id: 'welcome-tour',
  name: 'Welcome tour',
  published: true,
  publishedAt,
  frequency: 'once',
  tagIds: ['onboarding', 'beta'],
  createdAt,
  updatedAt,
  createdBy: 'ana',
  updatedBy: 'bo',
};

const step: Step = {
  id: 'step-1',
  index: 0,
  name: null,
  type: 'tooltip',
  parentId: null,
  children: [],
  actions: {},
  content: { html: '<p>Hi</p>' },
  contentType: 'text/html',
  rows: [],
  traits: [],
  createdAt: createdAt.getTime(),
  updatedAt: updatedAt.getTime(),
  createdBy: 'ana',
  updatedBy: 'bo',
};

const pin: ExperienceRecord = {
  ...flow,
  id: 'help-pin',
  kind: 'pin',
  appId: 'web-app',
  state: 'DRAFT',
  platform: 'web',
  type: 'persistent',
  previewUrl: null,
  lockedForLocalization: false,
  theme: null,
  traits: [{ key: 'value' }],
  steps: [step],
};

const tag: TagRecord = { accountId: 'acme', id: 'onboarding', name: 'Onboarding', createdAt, updatedAt, createdBy: 'ana', updatedBy: 'bo' };

const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
function schemaErrors(schema: object, value: unknown): string {
  const validate = ajv.compile(schema);
  return validate(value) ? '' : ajv.errorsText(validate.errors);
}

describe('toPublicFlow', () => {
  const output = toPublicFlow(flow, PUBLIC_URL);

  it('renders flow times as YYYY-MM-DDTHH:MM:SSZ without milliseconds', () => {
    expect(output).toMatchObject({
      created_at: '2024-05-01T09:30:00Z',
      updated_at: '2024-05-02T10:00:59Z',
      published_at: '2024-05-03T11:15:00Z',
    });
  });

  it('derives the tags map from tag_ids', () => {
    expect(output.tag_ids).toEqual(['onboarding', 'beta']);
    expect(output.tags).toEqual({ onboarding: true, beta: true });
  });

  it('links to the flow under the public base URL', () => {
    expect(output.url).toBe('https://guidepost.example.com/v2/accounts/acme/flows/welcome-tour');
  });

  it('gives published_at null for a flow never published', () => {
    expect(toPublicFlow({ ...flow, published: false, publishedAt: null }, PUBLIC_URL).published_at).toBeNull();
  });

  it('has exactly the fields of the Flow schema', () => {
    expect(Object.keys(output).sort()).toEqual(Object.keys(FlowSchema.properties).sort());
    expect(schemaErrors(FlowSchema, output)).toBe('');
  });
});

describe('toPublicExperience', () => {
  it('renders times as milliseconds since 1970', () => {
    expect(toPublicExperience(pin, PUBLIC_URL)).toMatchObject({
      created_at: createdAt.getTime(),
      updated_at: updatedAt.getTime(),
      published_at: publishedAt.getTime(),
    });
  });

  it('links pins under /pins/ and mobile experiences under /mobile/', () => {
    expect(toPublicExperience(pin, PUBLIC_URL).url).toBe(`${PUBLIC_URL}/v2/accounts/acme/pins/help-pin`);
    expect(toPublicExperience({ ...pin, kind: 'mobile' }, PUBLIC_URL).url).toBe(`${PUBLIC_URL}/v2/accounts/acme/mobile/help-pin`);
  });

  it('carries the owning account, the tags map and the steps', () => {
    const output = toPublicExperience(pin, PUBLIC_URL);
    expect(output).toMatchObject({ account_id: 'acme', app_id: 'web-app', tags: { onboarding: true, beta: true }, steps: [step] });
  });

  it('has exactly the fields of the Experience schema', () => {
    const output = toPublicExperience({ ...pin, publishedAt: null, published: false }, PUBLIC_URL);
    expect(Object.keys(output).sort()).toEqual(Object.keys(ExperienceSchema.properties).sort());
    expect(schemaErrors(ExperienceSchema, output)).toBe('');
  });
});

describe('toPublicTag', () => {
  it('renders times as ISO 8601 with milliseconds and Z, and links under /tags/', () => {
    const output = toPublicTag(tag, PUBLIC_URL);
    expect(output).toMatchObject({
      created_at: '2024-05-01T09:30:00.123Z',
      updated_at: '2024-05-02T10:00:59.999Z',
      url: `${PUBLIC_URL}/v2/accounts/acme/tags/onboarding`,
    });
    expect(Object.keys(output).sort()).toEqual(Object.keys(TagSchema.properties).sort());
    expect(schemaErrors(TagSchema, output)).toBe('');
  });
});

describe('tagMap and resourceUrl', () => {
  it('maps no tags to an empty object', () => {
    expect(tagMap([])).toEqual({});
  });

  it('encodes ids that are not URL-safe so that the link still points at the record', () => {
    expect(resourceUrl(PUBLIC_URL, 'acme', 'flows', 'a b/c')).toBe(`${PUBLIC_URL}/v2/accounts/acme/flows/a%20b%2Fc`);
  });
});
