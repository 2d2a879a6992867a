import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { api, createAccount, eventually, expectJson, server, upsert, waitForJob, type TestAccount } from './support';

/**
 * The OpenAPI document the server publishes is kept true by checking real answers against it. The
 * document is read over HTTP, as a client generator would.
 */

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
type Json = Record<string, unknown>;

interface ResponseObject {
  content?: Record<string, { schema: Json }>;
  headers?: Record<string, Json>;
}

interface OpenApiDocument {
  openapi: string;
  info: { version: string; title: string };
  paths: Record<string, Partial<Record<Method, { responses: Record<string, Json> }>>>;
  components: { schemas: Record<string, Json>; securitySchemes?: Record<string, Json> };
}

const ACCOUNT_PREFIX = '/v2/accounts/{account_id}';

/** Every operation of the contract (docs/api-contract.md#endpoints), plus the POST form of group association. */
const SPEC_OPERATIONS: [Method, string][] = [
  ['get', '/flows'],
  ['get', '/flows/{flow_id}'],
  ['post', '/flows/{flow_id}/publish'],
  ['post', '/flows/{flow_id}/unpublish'],
  ['get', '/segments'],
  ['post', '/segments'],
  ['get', '/segments/{segment_id}'],
  ['patch', '/segments/{segment_id}'],
  ['delete', '/segments/{segment_id}'],
  ['post', '/segments/{segment_id}/add_user_ids'],
  ['post', '/segments/{segment_id}/remove_user_ids'],
  ['post', '/segments/{segment_id}/segment_membership_export'],
  ['get', '/tags'],
  ['get', '/tags/{tag_id}'],
  ['get', '/users/{user_id}/profile'],
  ['patch', '/users/{user_id}/profile'],
  ['delete', '/users/{user_id}/profile'],
  ['get', '/users/{user_id}/events'],
  ['post', '/users/{user_id}/events'],
  ['get', '/groups/{group_id}/profile'],
  ['patch', '/groups/{group_id}/profile'],
  ['patch', '/groups/{group_id}/users'],
  ['post', '/groups/{group_id}/users'],
  ['post', '/import/profiles'],
  ['post', '/import/groups'],
  ['post', '/import/events'],
  ['post', '/export/events'],
  ['get', '/jobs'],
  ['get', '/jobs/{job_id}'],
  ['get', '/pins'],
  ['get', '/pins/{pin_id}'],
  ['post', '/pins/{pin_id}/publish'],
  ['post', '/pins/{pin_id}/unpublish'],
  ['get', '/mobile'],
  ['get', '/mobile/{mobile_id}'],
  ['post', '/mobile/{mobile_id}/publish'],
  ['post', '/mobile/{mobile_id}/unpublish'],
  ['get', '/ingestion_filtering_rules'],
];

/** Operations the contract adds where the public documentation is silent (per-row import failures). */
const DECISION_OPERATIONS: [Method, string][] = [['get', '/jobs/{job_id}/failures']];

let document: OpenApiDocument;
let apiVersion: string | null;
let account: TestAccount;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
/** The document's components are registered under this id, so response schemas can refer into them. */
const DOCUMENT_ID = 'https://guidepost.test/openapi.json';

beforeAll(async () => {
  const response = await fetch(`${server().baseUrl}/openapi.json`);
  apiVersion = response.headers.get('x-api-version');
  document = await expectJson<OpenApiDocument>(response, 200);
  ajv.addSchema({ $id: DOCUMENT_ID, components: document.components });
  account = await createAccount();
  await upsert(account, 'tags', [{ id: 'beta', name: 'Beta' }]);
  await upsert(account, 'flows', [{ id: 'welcome', name: 'Welcome', tag_ids: ['beta'] }]);
  await upsert(account, 'pins', [{ id: 'pin-1', name: 'Pin', steps: [{ id: 'step-1', name: 'First' }] }]);
});

/** A `$ref` within the document (`#/components/responses/NotFound`) resolved; anything else as it is. */
function dereference(node: Json | undefined): Json | undefined {
  const target = node?.['$ref'];
  if (typeof target !== 'string') return node;
  return target
    .slice(2)
    .split('/')
    .reduce<Json | undefined>((parent, segment) => parent?.[segment] as Json | undefined, document as unknown as Json);
}

/** Asserts that `body` is valid against the document's JSON schema for this operation and status. */
function expectConforms(method: Method, path: string, status: number, body: unknown): void {
  const response = dereference(document.paths[`${ACCOUNT_PREFIX}${path}`]?.[method]?.responses[String(status)]) as
    ResponseObject | undefined;
  const schema = response?.content?.['application/json']?.schema;
  if (schema === undefined) throw new Error(`the document has no JSON schema for ${method.toUpperCase()} ${path} ${status}`);
  // Local references (#/components/schemas/...) are pointed at the registered components.
  const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOCUMENT_ID}#/components/`)) as Json);
  const errors = validate(body) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
  expect({ operation: `${method.toUpperCase()} ${path} ${status}`, errors }).toEqual({
    operation: `${method.toUpperCase()} ${path} ${status}`,
    errors: [],
  });
}

async function call(method: Method, path: string, status: number, init?: { json?: unknown }): Promise<unknown> {
  return expectJson(await api(account, method.toUpperCase() as Uppercase<Method>, path, init), status);
}

describe('the document', () => {
  it('is OpenAPI 3.1 served without credentials, versioned like every response', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(apiVersion).toMatch(/^2\.32\.0\+guidepost\.\S+$/);
    expect(document.info.version).toBe(apiVersion);
  });

  it.each([...SPEC_OPERATIONS, ...DECISION_OPERATIONS])('documents %s %s', (method, path) => {
    expect(document.paths[`${ACCOUNT_PREFIX}${path}`]?.[method]).toBeDefined();
  });

  it('declares HTTP Basic authentication', () => {
    expect(Object.values(document.components.securitySchemes ?? {})).toContainEqual(
      expect.objectContaining({ type: 'http', scheme: 'basic' }),
    );
  });
});

describe('real responses conform to the document', () => {
  it('flows: list, get and the publish acknowledgement', async () => {
    expectConforms('get', '/flows', 200, await call('get', '/flows', 200));
    expectConforms('get', '/flows/{flow_id}', 200, await call('get', '/flows/welcome', 200));
    expectConforms('post', '/flows/{flow_id}/publish', 200, await call('post', '/flows/welcome/publish', 200));
    expectConforms('get', '/flows/{flow_id}', 200, await call('get', '/flows/welcome', 200));
  });

  it('pins and mobile experiences', async () => {
    expectConforms('get', '/pins/{pin_id}', 200, await call('get', '/pins/pin-1', 200));
    expectConforms('get', '/pins', 200, await call('get', '/pins', 200));
    expectConforms('post', '/pins/{pin_id}/publish', 200, await call('post', '/pins/pin-1/publish', 200));
    expectConforms('get', '/pins/{pin_id}', 200, await call('get', '/pins/pin-1', 200));
    expectConforms('get', '/mobile', 200, await call('get', '/mobile', 200));
  });

  it.each([
    ['launchpads', 'launchpad_id'],
    ['banners', 'banner_id'],
    ['checklists', 'checklist_id'],
    ['flows-v2', 'flow_v2_id'],
    ['embeds', 'embed_id'],
    ['nps', 'nps_id'],
  ] as const)('%s (beyond the contract): list, get and publish, the studio fields included', async (kind, parameter) => {
    await upsert(account, kind, [{ id: 'doc-1', name: 'Doc', type: kind, steps: [{ id: 's' }], studio_only: { x: [1] } }]);
    expectConforms('get', `/${kind}`, 200, await call('get', `/${kind}`, 200));
    expectConforms('post', `/${kind}/{${parameter}}/publish`, 200, await call('post', `/${kind}/doc-1/publish`, 200));
    expectConforms('get', `/${kind}/{${parameter}}`, 200, await call('get', `/${kind}/doc-1`, 200));
    expectConforms('post', `/${kind}/{${parameter}}/unpublish`, 200, await call('post', `/${kind}/doc-1/unpublish`, 200));
  });

  it('tags', async () => {
    expectConforms('get', '/tags', 200, await call('get', '/tags', 200));
    expectConforms('get', '/tags/{tag_id}', 200, await call('get', '/tags/beta', 200));
  });

  it('ingestion filtering rules', async () => {
    expectConforms('get', '/ingestion_filtering_rules', 200, await call('get', '/ingestion_filtering_rules', 200));
  });

  it('segments, the asynchronous acknowledgement and jobs', async () => {
    const segment = (await call('post', '/segments', 201, { json: { name: 'Conforming', description: 'A segment' } })) as Json;
    expectConforms('post', '/segments', 201, segment);
    const segmentPath = `/segments/${String(segment['id'])}`;
    expectConforms('get', '/segments/{segment_id}', 200, await call('get', segmentPath, 200));
    expectConforms('get', '/segments', 200, await call('get', '/segments', 200));

    const acknowledgement = (await call('post', `${segmentPath}/add_user_ids`, 202, { json: { user_ids: ['u-1', 'u-2'] } })) as Json;
    expectConforms('post', '/segments/{segment_id}/add_user_ids', 202, acknowledgement);

    const jobPath = `/jobs/${String(acknowledgement['job_id'])}`;
    expectConforms('get', '/jobs/{job_id}', 200, await call('get', jobPath, 200));
    expectConforms('get', '/jobs/{job_id}', 200, await waitForJob(account, String(acknowledgement['job_url'])));
    expectConforms('get', '/jobs', 200, await call('get', '/jobs', 200));

    expectConforms('delete', '/segments/{segment_id}', 200, await call('delete', segmentPath, 200));
  });

  it('user profiles, their deletion job and event history', async () => {
    const userPath = `/users/conforming-${Date.now()}`;
    expectConforms(
      'patch',
      '/users/{user_id}/profile',
      200,
      await call('patch', `${userPath}/profile`, 200, { json: { plan: 'pro', seats: 2 } }),
    );
    expectConforms('get', '/users/{user_id}/profile', 200, await call('get', `${userPath}/profile`, 200));
    const event = { name: 'signup', timestamp: '2024-05-01T09:30:00Z', attributes: { plan: 'pro' } };
    expectConforms('post', '/users/{user_id}/events', 200, await call('post', `${userPath}/events`, 200, { json: event }));
    const events = await eventually(async () => {
      const listed = (await call('get', `${userPath}/events?time_zone=-04:00`, 200)) as Json[];
      expect(listed.map((item) => item['name'])).toContain('signup');
      return listed;
    });
    expectConforms('get', '/users/{user_id}/events', 200, events);
    expectConforms('get', '/users/{user_id}/events', 400, await call('get', `${userPath}/events?limit=abc`, 400));
    expectConforms('post', '/users/{user_id}/events', 400, await call('post', `${userPath}/events`, 400, { json: { name: 'x' } }));

    const deletion = (await call('delete', `${userPath}/profile`, 202)) as Json;
    expectConforms('delete', '/users/{user_id}/profile', 202, deletion);
    await waitForJob(account, String(deletion['job_url']));
    expectConforms('get', '/users/{user_id}/profile', 404, await call('get', `${userPath}/profile`, 404));
  });

  it('group profiles and the association of users', async () => {
    const groupPath = `/groups/conforming-${Date.now()}`;
    expectConforms(
      'patch',
      '/groups/{group_id}/profile',
      200,
      await call('patch', `${groupPath}/profile`, 200, { json: { industry: 'retail' } }),
    );
    expectConforms('get', '/groups/{group_id}/profile', 200, await call('get', `${groupPath}/profile`, 200));
    expectConforms(
      'patch',
      '/groups/{group_id}/users',
      200,
      await call('patch', `${groupPath}/users`, 200, { json: { user_ids: ['g-1'] } }),
    );
    expectConforms('post', '/groups/{group_id}/users', 200, await call('post', `${groupPath}/users`, 200, { json: { user_ids: ['g-2'] } }));
    expectConforms('post', '/groups/{group_id}/users', 400, await call('post', `${groupPath}/users`, 400, { json: {} }));
  });

  it('imports, their failures and the event export', async () => {
    const imported = await api(account, 'POST', '/import/profiles', {
      body: '{"user_id":"i-1","plan":"pro"}\n{"plan":"no id"}\n',
      headers: { 'Content-Type': 'application/ndjson' },
    });
    const acknowledgement = await expectJson<Json>(imported, 202);
    expectConforms('post', '/import/profiles', 202, acknowledgement);
    expectConforms('get', '/jobs/{job_id}', 200, await waitForJob(account, String(acknowledgement['job_url'])));
    const failures = await call('get', `/jobs/${String(acknowledgement['job_id'])}/failures`, 200);
    expectConforms('get', '/jobs/{job_id}/failures', 200, failures);

    const exported = await call('post', '/export/events', 202, { json: { format: 'json', conditions: [], start_time: 0 } });
    expectConforms('post', '/export/events', 202, exported);
    expectConforms('get', '/jobs/{job_id}', 200, await waitForJob(account, String((exported as Json)['job_url'])));
    expectConforms('post', '/export/events', 400, await call('post', '/export/events', 400, { json: { format: 'xml' } }));
  });

  it('Idempotency-Key: the replay, the 422 of another body and the 400 of a malformed key', async () => {
    const key = `conforming-${Date.now()}`;
    const keyed = (json: unknown, idempotencyKey = key) =>
      api(account, 'POST', '/segments', { json, headers: { 'Idempotency-Key': idempotencyKey } });
    const created = await expectJson(await keyed({ name: 'Keyed' }), 201);
    const replay = await keyed({ name: 'Keyed' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expectConforms('post', '/segments', 201, await expectJson(replay, 201));
    expect(await expectJson(await keyed({ name: 'Keyed' }), 201)).toEqual(created);
    expectConforms('post', '/segments', 422, await expectJson(await keyed({ name: 'Other' }), 422));
    expectConforms('post', '/segments', 400, await expectJson(await keyed({ name: 'Keyed' }, 'k'.repeat(256)), 400));
  });

  it('the 415 of a body in a coding not taken, with the headers the document lists', async () => {
    const response = await api(account, 'POST', '/users/conforming/events', {
      body: '{}',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'br' },
    });
    expectConforms('post', '/users/{user_id}/events', 415, await expectJson(response, 415));
    const documented = dereference(document.paths[`${ACCOUNT_PREFIX}/users/{user_id}/events`]?.post?.responses['415']) as ResponseObject;
    for (const header of Object.keys(documented.headers ?? {}))
      expect({ header, sent: response.headers.has(header) }).toEqual({ header, sent: true });
  });

  it('Problem Details of 400, 401 and 404', async () => {
    expectConforms('get', '/flows/{flow_id}', 404, await call('get', '/flows/no-such-flow', 404));
    expectConforms('post', '/segments', 400, await call('post', '/segments', 400, { json: { description: 'no name' } }));
    const anonymous = await fetch(`${server().baseUrl}/v2/accounts/${account.id}/tags`);
    expectConforms('get', '/tags', 401, await expectJson(anonymous, 401));
  });
});
