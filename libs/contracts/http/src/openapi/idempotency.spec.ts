import { IDEMPOTENCY_UNSTORED_STATUSES, isFinalAnswerStatus } from '../idempotency';
import { buildOpenApiDocument } from './openapi-document';

type Json = Record<string, unknown>;

const document = buildOpenApiDocument() as Json & { paths: Record<string, Record<string, Json>>; components: Record<string, Json> };

function operations(): [string, string, Json][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => [path, method, op] as [string, string, Json]),
  );
}

const KEY_PARAMETER = { $ref: '#/components/parameters/Idempotency-Key' };

describe('Idempotency-Key in the OpenAPI document', () => {
  it('is a reusable header parameter of 1 to 255 printable ASCII characters', () => {
    expect(document.components['parameters']['Idempotency-Key']).toMatchObject({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
    const pattern = new RegExp(((document.components['parameters']['Idempotency-Key'] as Json)['schema'] as Json)['pattern'] as string);
    expect(pattern.test('6f2b6a52-3c1d-4b8e-9a55-0f5f1d2c7e10')).toBe(true);
    expect(pattern.test('a b~')).toBe(true);
    expect(pattern.test('clé')).toBe(false);
    expect(pattern.test('')).toBe(false);
  });

  it('is on every POST, PATCH and DELETE with its 400, 409 and 422 answers, and on nothing else', () => {
    const unsafe = operations().filter(([, method]) => ['post', 'patch', 'delete'].includes(method));
    expect(unsafe.length).toBeGreaterThan(20);
    for (const [path, method, op] of operations()) {
      const parameters = op['parameters'] as Json[];
      const responses = op['responses'] as Json;
      const isUnsafe = ['post', 'patch', 'delete'].includes(method);
      expect({ path, method, keyed: parameters.some((parameter) => parameter['$ref'] === KEY_PARAMETER.$ref) }).toEqual({
        path,
        method,
        keyed: isUnsafe,
      });
      if (!isUnsafe) continue;
      expect({ path, method, statuses: ['400', '409', '422'].filter((status) => status in responses) }).toEqual({
        path,
        method,
        statuses: ['400', '409', '422'],
      });
      expect(responses['409']).toEqual({ $ref: '#/components/responses/IdempotencyKeyInUse' });
      expect(responses['422']).toEqual({ $ref: '#/components/responses/IdempotencyKeyReused' });
      for (const [status, response] of Object.entries(responses).filter(([status]) => status.startsWith('2'))) {
        expect({ path, method, status, headers: Object.keys((response as Json)['headers'] as Json) }).toMatchObject({
          headers: expect.arrayContaining(['Idempotent-Replayed', 'X-API-Version']),
        });
      }
    }
  });

  it('describes the 409 and 422 as Problem Details, and the rule in the introduction', () => {
    for (const name of ['IdempotencyKeyInUse', 'IdempotencyKeyReused']) {
      expect((document.components['responses'][name] as Json)['content']).toEqual({
        'application/json': { schema: { $ref: '#/components/schemas/Problem' } },
      });
    }
    const description = (document['info'] as Json)['description'] as string;
    expect(description).toMatch(/\*\*Idempotent requests\.\*\*.*Idempotency-Key.*24 hours/s);
    expect(description).toMatch(/event_id/);
  });

  it('documents event_id on the track body', () => {
    expect(((document.components['schemas']['TrackEvent'] as Json)['properties'] as Json)['event_id']).toMatchObject({
      type: 'string',
      minLength: 1,
      maxLength: 255,
    });
  });
});

describe('isFinalAnswerStatus', () => {
  it('stores 2xx and 4xx answers, but not 401, 403, 408, 409, 429 or any 5xx', () => {
    for (const status of [200, 201, 202, 204, 400, 404, 405, 413, 415, 422])
      expect({ status, final: isFinalAnswerStatus(status) }).toEqual({ status, final: true });
    for (const status of [...IDEMPOTENCY_UNSTORED_STATUSES, 500, 502, 503, 504, 101, 302])
      expect({ status, final: isFinalAnswerStatus(status) }).toEqual({ status, final: false });
  });
});
