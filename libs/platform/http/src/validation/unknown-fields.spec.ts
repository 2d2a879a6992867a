import { Type } from '@sinclair/typebox';
import { DomainError } from '@guidepost/platform-errors';
import { compileValidator } from './compile-validator';

/** A body of every kind of object the rule tells apart, nested as request bodies nest them. */
const ExperienceSchema = Type.Object({
  name: Type.String({ minLength: 1 }),
  steps: Type.Optional(Type.Array(Type.Object({ id: Type.String(), content: Type.Record(Type.String(), Type.Unknown()) }))),
  owner: Type.Optional(Type.Union([Type.Object({ email: Type.String({ format: 'email' }) }), Type.Null()])),
  attributes: Type.Optional(
    Type.Object({ _identity: Type.Optional(Type.Object({}, { additionalProperties: true })) }, { additionalProperties: true }),
  ),
  settings: Type.Optional(Type.Object({ mode: Type.String() }, { additionalProperties: false })),
});
const validateExperience = compileValidator(ExperienceSchema);

function detailOf(value: unknown): string {
  try {
    validateExperience(value);
  } catch (error) {
    if (error instanceof DomainError) return error.detail;
    throw error;
  }
  return 'accepted';
}

describe('unknown fields of a request body', () => {
  it('are dropped from fixed-shape objects at every level: the body, items of a list, a nullable object', () => {
    const body = {
      name: 'Tour',
      _sync_id: 's-1',
      steps: [
        { id: 'a', content: {}, _sync_id: 's-2' },
        { id: 'b', content: {} },
      ],
      owner: { email: 'o@example.com', url: 'https://example.com/owners/1' },
    };
    expect(validateExperience(body)).toEqual({
      name: 'Tour',
      steps: [
        { id: 'a', content: {} },
        { id: 'b', content: {} },
      ],
      owner: { email: 'o@example.com' },
    });
    expect(body._sync_id).toBe('s-1');
  });

  it('are kept in free-form objects, whose keys are data, however deep', () => {
    const body = {
      name: 'Tour',
      steps: [{ id: 'a', content: { html: '<p>Hi</p>', _sync_id: 'kept' } }],
      attributes: { plan: 'pro', _identity: { _sessionId: 's' } },
    };
    expect(validateExperience(body)).toEqual(body);
  });

  it('are refused in a closed object, naming the field', () => {
    expect(detailOf({ name: 'Tour', settings: { mode: 'a', mdoe: 'b' } })).toBe('settings.mdoe: is not a known field');
  });

  it('leave the known fields validated as strictly as ever, naming the field at fault', () => {
    expect(detailOf({ name: 42, _sync_id: 's-1' })).toBe('name: must be string');
    expect(
      detailOf({
        name: 'Tour',
        steps: [
          { id: 'a', content: {}, _sync_id: 1 },
          { id: 2, content: {} },
        ],
      }),
    ).toBe('steps.1.id: must be string');
    expect(detailOf({ name: 'Tour', owner: { email: 'nope', _sync_id: 1 } })).toBe('owner.email: must match format "email"');
    expect(detailOf({ _sync_id: 's-1' })).toBe('name: is required');
  });

  it('answer the body itself when there is nothing to drop, and a copy holding `__proto__` as a plain key otherwise', () => {
    const body = { name: 'Tour', steps: [{ id: 'a', content: {} }] };
    expect(validateExperience(body)).toBe(body);
    const withProto = JSON.parse('{"name": "Tour", "__proto__": {"polluted": true}, "steps": [{"id": "a", "content": {"__proto__": 1}}]}');
    const validated = validateExperience(withProto) as Record<string, unknown>;
    expect(Object.getPrototypeOf(validated)).toBe(Object.prototype);
    expect(Object.keys(validated)).toEqual(['name', 'steps']);
    expect(Object.keys((validateExperience(withProto).steps ?? [])[0].content)).toEqual(['__proto__']);
  });
});
