import { Type } from '@sinclair/typebox';
import { DomainError, InvalidField } from '@guidepost/platform-errors';
import { compileCheck, compileValidator } from './compile-validator';

const SegmentSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    property_names: Type.Optional(Type.Array(Type.String())),
    kind: Type.Optional(Type.Union([Type.Literal('static'), Type.Literal('dynamic')])),
    owner: Type.Optional(Type.Object({ email: Type.String({ format: 'email' }) })),
  },
  { additionalProperties: false },
);
const validateSegment = compileValidator(SegmentSchema);

function detailOf(value: unknown): string {
  try {
    validateSegment(value);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'invalid_request') return error.detail;
    throw error;
  }
  throw new Error('expected the value to be rejected');
}

describe('compileValidator', () => {
  it('returns a valid value as it is', () => {
    const segment = { name: 'Power users', property_names: ['plan'] };
    expect(validateSegment(segment)).toBe(segment);
  });

  it.each([
    [{}, 'name: is required'],
    [{ name: 3 }, 'name: must be string'],
    [{ name: '' }, 'name: must not be empty'],
    [{ name: 'a', property_names: ['x', 'y', 5] }, 'property_names.2: must be string'],
    [{ name: 'a', kind: 'other' }, 'kind: must be one of "static", "dynamic"'],
    [{ name: 'a', owner: {} }, 'owner.email: is required'],
    [{ name: 'a', owner: { email: 'nope' } }, 'owner.email: must match format "email"'],
    [{ name: 'a', colour: 'red' }, 'colour: is not a known field'],
    [[], 'body: must be object'],
  ])('rejects %j with "%s"', (value, detail) => {
    expect(detailOf(value)).toBe(detail);
  });

  it("names what is wrong inside the one branch of a union that has the value's type, and the union otherwise", () => {
    const Addresses = Type.Object({
      email: Type.Union([Type.String({ format: 'email' }), Type.Array(Type.String({ format: 'email' }), { maxItems: 2 })]),
    });
    const failureOf = (email: unknown) => compileCheck(Addresses)({ email });
    expect(failureOf(['a@x.test', 'b@x.test', 'c@x.test'])).toEqual({
      ok: false,
      failure: { field: 'email', reason: 'must NOT have more than 2 items' },
    });
    expect(failureOf(['a@x.test', 'nope'])).toEqual({ ok: false, failure: { field: 'email.1', reason: 'must match format "email"' } });
    expect(failureOf('nope')).toEqual({ ok: false, failure: { field: 'email', reason: 'must match format "email"' } });
    expect(failureOf(3)).toEqual({ ok: false, failure: { field: 'email', reason: 'does not match any of the allowed forms' } });
  });

  it('names the fields one of which a union of required fields needs', () => {
    const Changes = Type.Object(
      { name: Type.Optional(Type.String()), description: Type.Optional(Type.String()) },
      { anyOf: [{ required: ['name'] }, { required: ['description'] }] },
    );
    expect(compileCheck(Changes)({ colour: 'red' })).toEqual({
      ok: false,
      failure: { field: null, reason: 'must have one of the fields "name", "description"' },
    });
  });

  it('never coerces types', () => {
    const validateCount = compileValidator(Type.Object({ count: Type.Integer() }));
    expect(() => validateCount({ count: '5' })).toThrow('count: must be integer');
  });

  it('reports the field at fault as a value, so a key holding ": " or "." is not split again', () => {
    const Attributes = Type.Object({ attributes: Type.Record(Type.String(), Type.String()) });
    const failure = { field: 'attributes.plan: tier', reason: 'must be string' };
    expect(compileCheck(Attributes)({ attributes: { 'plan: tier': 3 } })).toEqual({ ok: false, failure });
    expect(compileCheck(Attributes)([])).toEqual({ ok: false, failure: { field: null, reason: 'must be object' } });
    const refused = (() => {
      try {
        compileValidator(Attributes)({ attributes: { 'plan: tier': 3 } });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(InvalidField);
    expect(refused).toMatchObject({ code: 'invalid_request', failure, detail: 'attributes.plan: tier: must be string' });
  });

  it('hands a matching value back typed', () => {
    const segment = { name: 'Power users' };
    expect(compileCheck(SegmentSchema)(segment)).toEqual({ ok: true, value: segment });
  });

  it('compiles a schema with an $id more than once without complaint', () => {
    const Identified = Type.Object({ id: Type.String() }, { $id: 'IdentifiedForValidatorSpec' });
    expect(compileValidator(Identified)).toBe(compileValidator(Identified));
    expect(compileCheck(Identified)).toBe(compileCheck(Identified));
  });
});
