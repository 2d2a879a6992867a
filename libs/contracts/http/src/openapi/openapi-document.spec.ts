import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Type } from '@sinclair/typebox';
import { PUBLIC_API_VERSION } from '../api-version';
import { MAX_CONDITION_DEPTH } from '../schemas/exports.schema';
import { buildOpenApiDocument } from './openapi-document';
import { SchemaComponents } from './schema-components';

type Json = Record<string, unknown>;
const ACCOUNT = '/v2/accounts/{account_id}';

/**
 * Every operation of the contract (docs/api-contract.md#endpoints), plus the POST form of group association and the
 * failures of an import job (its choices where the public documentation is silent).
 */
const SPEC_OPERATIONS: [string, string][] = [
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
  ['get', '/jobs/{job_id}/failures'],
  ['get', '/pins'],
  ['get', '/pins/{pin_id}'],
  ['post', '/pins/{pin_id}/publish'],
  ['post', '/pins/{pin_id}/unpublish'],
  ['get', '/mobile'],
  ['get', '/mobile/{mobile_id}'],
  ['post', '/mobile/{mobile_id}/publish'],
  ['post', '/mobile/{mobile_id}/unpublish'],
  // The experience kinds beyond the contract (docs/api-contract.md#beyond-the-contract), each with the verbs of pins.
  ...[
    ['launchpads', 'launchpad_id'],
    ['banners', 'banner_id'],
    ['checklists', 'checklist_id'],
    ['flows-v2', 'flow_v2_id'],
    ['embeds', 'embed_id'],
    ['nps', 'nps_id'],
  ].flatMap(([collection, id]): [string, string][] => [
    ['get', `/${collection}`],
    ['get', `/${collection}/{${id}}`],
    ['post', `/${collection}/{${id}}/publish`],
    ['post', `/${collection}/{${id}}/unpublish`],
  ]),
  ['get', '/ingestion_filtering_rules'],
  // Analytics queries and their exports, beyond the contract as the experience kinds are.
  ['post', '/analytics/query'],
  ['post', '/analytics/exports'],
  ['get', '/analytics/exports/{job_id}'],
];

const document = buildOpenApiDocument() as Json & { paths: Record<string, Record<string, Json>>; components: Json };

function operations(): [string, string, Json][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => [path, method, op] as [string, string, Json]),
  );
}

/** Every `$ref` anywhere in the document, with where it was found. */
function references(node: unknown, at = '#'): [string, string][] {
  if (Array.isArray(node)) return node.flatMap((child, index) => references(child, `${at}/${index}`));
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === '$ref' && typeof value === 'string' ? [[at, value] as [string, string]] : references(value, `${at}/${key}`),
  );
}

function resolve(pointer: string): unknown {
  return pointer
    .slice(2)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, segment) => (typeof node === 'object' && node !== null ? (node as Json)[segment] : undefined), document);
}

function schemaValidator(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'doc', components: document.components });
  return ajv;
}

describe('buildOpenApiDocument', () => {
  it('is an OpenAPI 3.1 document of this interface version with Basic authentication', () => {
    expect(document['openapi']).toBe('3.1.0');
    expect((document['info'] as Json)['version']).toBe(PUBLIC_API_VERSION);
    expect(document['security']).toEqual([{ basicAuth: [] }]);
    expect((document.components['securitySchemes'] as Json)['basicAuth']).toMatchObject({ type: 'http', scheme: 'basic' });
  });

  it('offers both regional hosts as server variables', () => {
    const servers = document['servers'] as Json[];
    expect(servers.map((server) => server['url'])).toEqual(['{base_url}', '{base_url_eu}']);
  });

  it.each(SPEC_OPERATIONS)('documents %s %s', (method, path) => {
    expect(document.paths[`${ACCOUNT}${path}`]?.[method]).toBeDefined();
  });

  it('documents nothing beyond the spec', () => {
    const documented = operations()
      .map(([path, method]) => `${method} ${path}`)
      .sort();
    expect(documented).toEqual(SPEC_OPERATIONS.map(([method, path]) => `${method} ${ACCOUNT}${path}`).sort());
  });

  it('resolves every $ref', () => {
    const dangling = references(document).filter(([, target]) => resolve(target) === undefined);
    expect(dangling).toEqual([]);
  });

  it('gives operations unique ids and declares every path parameter', () => {
    const ids = operations().map(([, , op]) => op['operationId']);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [path, , op] of operations()) {
      const declared = (op['parameters'] as Json[]).map((parameter) =>
        typeof parameter['$ref'] === 'string' ? (resolve(parameter['$ref']) as Json)['name'] : parameter['name'],
      );
      const inTemplate = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect({ path, missing: inTemplate.filter((name) => !declared.includes(name)) }).toEqual({ path, missing: [] });
    }
  });

  it('documents authentication, access, throttling and unavailability errors as Problem Details on every operation', () => {
    for (const [path, method, op] of operations()) {
      const responses = op['responses'] as Json;
      for (const status of ['401', '403', '429', '500', '503'])
        expect({ path, method, status, has: status in responses }).toMatchObject({ has: true });
    }
    const unavailable = resolve('#/components/responses/ServiceUnavailable') as Json;
    expect(Object.keys(unavailable['headers'] as Json)).toContain('Retry-After');
    const throttled = resolve('#/components/responses/TooManyRequests') as Json;
    expect(Object.keys(throttled['headers'] as Json)).toEqual(
      expect.arrayContaining([
        'Retry-After',
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
      ]),
    );
    expect((throttled['content'] as Json)['application/json']).toEqual({ schema: { $ref: '#/components/schemas/Problem' } });
  });

  it('documents 413 and 415 wherever a body is accepted, and JSON plus CSV for every success', () => {
    for (const [path, method, op] of operations()) {
      const responses = op['responses'] as Record<string, Json>;
      if (op['requestBody'] !== undefined)
        expect({ path, method, has: '413' in responses && '415' in responses }).toMatchObject({ has: true });
      for (const [status, response] of Object.entries(responses).filter(([status]) => status.startsWith('2'))) {
        expect({ path, method, status, types: Object.keys(response['content'] as Json) }).toMatchObject({
          types: ['application/json', 'text/csv'],
        });
      }
    }
  });

  it('accepts all four user-id forms for segment membership and group association', () => {
    for (const path of ['/segments/{segment_id}/add_user_ids', '/segments/{segment_id}/remove_user_ids', '/groups/{group_id}/users']) {
      const content = (document.paths[`${ACCOUNT}${path}`]['post']['requestBody'] as Json)['content'] as Json;
      expect(Object.keys(content)).toEqual(
        expect.arrayContaining(['application/json', 'application/ndjson', 'text/csv', 'multipart/mixed']),
      );
    }
  });

  it('has component schemas that are valid JSON Schema 2020-12', () => {
    const ajv = schemaValidator();
    for (const name of Object.keys(document.components['schemas'] as Json)) {
      expect(() => ajv.compile({ $ref: `doc#/components/schemas/${name}` })).not.toThrow();
    }
  });

  it('describes the export condition grammar in the 2020-12 form (tuples, nesting)', () => {
    const validate = schemaValidator().compile({ $ref: 'doc#/components/schemas/EventExportRequest' });
    const request = (conditions: unknown[]) => ({ format: 'csv', conditions, start_time: 0 });
    expect(validate(request([['or', ['flow_id', '==', 'f'], ['and', ['name', 'like', 'svc:%'], ['nps_feedback', 'is not null']]]]))).toBe(
      true,
    );
    expect(validate(request([['name', '==', 'a', 'extra']]))).toBe(false);
    expect(validate(request([['or', ['name', 'between', 1]]]))).toBe(false);
    let nested: unknown[] = ['name', 'is null'];
    for (let depth = 1; depth <= MAX_CONDITION_DEPTH; depth += 1) nested = ['and', nested];
    expect(validate(request([nested]))).toBe(true);
    expect(validate(request([['or', nested]]))).toBe(false);
  });

  it('has no schema that refers back to itself, so generators of instances (schemathesis) terminate', () => {
    const schemas = document.components['schemas'] as Record<string, unknown>;
    const refersTo = (name: string) =>
      references(schemas[name])
        .map(([, target]) => target.replace('#/components/schemas/', ''))
        .filter((target) => target in schemas);
    const cycles: string[] = [];
    const visit = (name: string, path: string[]): void => {
      if (path.includes(name)) {
        cycles.push([...path.slice(path.indexOf(name)), name].join(' -> '));
        return;
      }
      for (const target of new Set(refersTo(name))) visit(target, [...path, name]);
    };
    for (const name of Object.keys(schemas)) visit(name, []);
    expect(cycles).toEqual([]);
  });

  it('describes a real content record and a job as they are returned', () => {
    const ajv = schemaValidator();
    const flow = {
      id: 'welcome',
      name: 'Welcome',
      published: false,
      frequency: 'once',
      tag_ids: ['a'],
      tags: { a: true },
      created_at: '2024-05-01T09:30:00Z',
      updated_at: '2024-05-01T09:30:00Z',
      published_at: null,
      created_by: 'x',
      updated_by: 'x',
      url: 'http://localhost:8080/v2/accounts/acme/flows/welcome',
    };
    expect(ajv.validate({ $ref: 'doc#/components/schemas/Flow' }, flow)).toBe(true);
    expect(ajv.validate({ $ref: 'doc#/components/schemas/Flow' }, { ...flow, tags: { a: 'yes' } })).toBe(false);
    const job = {
      id: 'j1',
      name: 'Import Profiles',
      started_at: '2024-05-01T09:30:00.123',
      status: 'COMPLETED',
      url: 'http://localhost:8080/v2/accounts/acme/jobs/j1',
      events: [{ name: 'Completed', timestamp: '2024-05-01T09:30:01.000Z', attributes: { ingestions_completed: 3 } }],
    };
    expect(ajv.validate({ $ref: 'doc#/components/schemas/JobDetail' }, job)).toBe(true);
  });

  it('says that publish and unpublish move the state of every experience kind along, and flows have none', () => {
    const describing = (path: string) => String(document.paths[`${ACCOUNT}${path}`]['post']['description']);
    for (const [collection, parameter] of [
      ['pins', 'pin_id'],
      ['checklists', 'checklist_id'],
    ]) {
      expect(describing(`/${collection}/{${parameter}}/publish`)).toContain('`state` to `PUBLISHED`');
      expect(describing(`/${collection}/{${parameter}}/unpublish`)).toContain('`state` of `PUBLISHED` into `DRAFT`');
    }
    expect(describing('/flows/{flow_id}/publish')).not.toContain('state');
  });

  it("describes a studio document with its managed fields, times in milliseconds, and the studio's fields open", () => {
    const ajv = schemaValidator();
    const managed = {
      id: 'lp-1',
      name: 'Home',
      published: true,
      published_at: 1714555800123,
      state: 'PUBLISHED',
      created_at: 1714555800123,
      updated_at: 1714555800123,
      created_by: 'guidepost-admin',
      updated_by: 'ana@example.com',
      url: 'http://localhost:8080/v2/accounts/acme/launchpads/lp-1',
    };
    const studio = { type: 'launchpad', steps: [{ id: 's1' }], frequency: 'every_time', custom: { any: ['thing'] } };
    expect(ajv.validate({ $ref: 'doc#/components/schemas/Launchpad' }, { ...managed, ...studio })).toBe(true);
    expect(ajv.validate({ $ref: 'doc#/components/schemas/Launchpad' }, { ...managed, created_at: '2024-05-01T09:30:00.123Z' })).toBe(false);
    for (const field of ['state', 'url', 'created_by', 'updated_by']) {
      expect(ajv.validate({ $ref: 'doc#/components/schemas/Launchpad' }, { ...managed, [field]: undefined })).toBe(false);
    }
    const checklist = { ...managed, published: false, published_at: null, state: 'DRAFT' };
    expect(ajv.validate({ $ref: 'doc#/components/schemas/Checklist' }, checklist)).toBe(true);
    expect(ajv.validate({ $ref: 'doc#/components/schemas/Checklist' }, { ...checklist, updated_at: '2024-05-01T09:30:00.123Z' })).toBe(
      false,
    );
  });
});

describe('SchemaComponents', () => {
  it('publishes nested named schemas once, as references', () => {
    const inner = Type.Object({ a: Type.String() }, { $id: 'Inner' });
    const outer = Type.Object({ inner, many: Type.Array(inner) }, { $id: 'Outer' });
    const components = new SchemaComponents().add(outer).all();
    expect(Object.keys(components)).toEqual(['Inner', 'Outer']);
    expect(components['Outer']['properties']).toMatchObject({
      inner: { $ref: '#/components/schemas/Inner' },
      many: { type: 'array', items: { $ref: '#/components/schemas/Inner' } },
    });
    expect(components['Inner']).not.toHaveProperty('$id');
  });

  it('rewrites tuples as prefixItems and string-keyed records as additionalProperties', () => {
    const schema = Type.Object(
      { pair: Type.Tuple([Type.String(), Type.Number()]), map: Type.Record(Type.String(), Type.Boolean()) },
      { $id: 'Forms' },
    );
    const forms = new SchemaComponents().add(schema).all()['Forms']['properties'] as Json;
    expect(forms['pair']).toMatchObject({ prefixItems: [{ type: 'string' }, { type: 'number' }], items: false });
    expect(forms['pair']).not.toHaveProperty('additionalItems');
    expect(forms['map']).toMatchObject({ type: 'object', additionalProperties: { type: 'boolean' } });
    expect(forms['map']).not.toHaveProperty('patternProperties');
  });
});
