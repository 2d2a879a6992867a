import Ajv from 'ajv';
import { Type } from '@sinclair/typebox';
import { ID_MAX_LENGTH, identifierProblem, identifierSchema, textProblem } from './input-limits';

// The same ajv settings the platform's validators use: `maxLength` counts code points.
const validateId = new Ajv({ strict: false }).compile(Type.Object({ id: identifierSchema('An id') }));

describe('identifierProblem', () => {
  it.each([
    ['a short id', 'u-1'],
    [`${ID_MAX_LENGTH} characters`, 'x'.repeat(ID_MAX_LENGTH)],
    [`${ID_MAX_LENGTH} emoji (a surrogate pair each, ${2 * ID_MAX_LENGTH} UTF-16 units)`, '😀'.repeat(ID_MAX_LENGTH)],
    ['accents and spaces', 'Zoë Müller 1'],
  ])('takes %s, as the schema does', (_case, id) => {
    expect(identifierProblem(id)).toBeUndefined();
    expect(validateId({ id })).toBe(true);
  });

  it.each([
    ['an empty id', '', 'must not be empty'],
    [`${ID_MAX_LENGTH + 1} characters`, 'x'.repeat(ID_MAX_LENGTH + 1), `must NOT have more than ${ID_MAX_LENGTH} characters`],
    [`${ID_MAX_LENGTH + 1} emoji`, '😀'.repeat(ID_MAX_LENGTH + 1), `must NOT have more than ${ID_MAX_LENGTH} characters`],
  ])('refuses %s, as the schema does', (_case, id, problem) => {
    expect(identifierProblem(id)).toBe(problem);
    expect(validateId({ id })).toBe(false);
  });

  it('reads a too-long id in the words of the schema', () => {
    validateId({ id: 'x'.repeat(ID_MAX_LENGTH + 1) });
    expect(validateId.errors?.[0]?.message).toBe(identifierProblem('x'.repeat(ID_MAX_LENGTH + 1)));
  });

  it('refuses NUL and lone surrogates, which no store keeps', () => {
    expect(identifierProblem('a\u0000b')).toMatch(/NUL/);
    expect(identifierProblem('a\ud800')).toMatch(/lone UTF-16 surrogate/);
  });
});

describe('textProblem', () => {
  it('passes plain text, and text with surrogate pairs', () => {
    expect(textProblem('plain')).toBeUndefined();
    expect(textProblem('🙂')).toBeUndefined();
  });

  it('names NUL and lone surrogates, high or low, anywhere', () => {
    expect(textProblem('\u0000')).toMatch(/NUL/);
    expect(textProblem('a\ud83d')).toMatch(/lone UTF-16 surrogate/);
    expect(textProblem('\udc00a')).toMatch(/lone UTF-16 surrogate/);
    expect(textProblem('🙂\ud83d🙂')).toMatch(/lone UTF-16 surrogate/);
  });
});
