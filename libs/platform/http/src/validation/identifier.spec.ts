import { ID_MAX_LENGTH } from '@guidepost/contracts-http';
import { checkedIdentifier, IdentifierParam } from './identifier';

describe('IdentifierParam', () => {
  const pipe = new IdentifierParam();
  const param = (data: string) => ({ type: 'param' as const, data });

  it(`passes an id of up to ${ID_MAX_LENGTH} characters on as it is`, () => {
    expect(pipe.transform('u-1', param('user_id'))).toBe('u-1');
    expect(pipe.transform('😀'.repeat(ID_MAX_LENGTH), param('group_id'))).toBe('😀'.repeat(ID_MAX_LENGTH));
  });

  it.each([
    ['too long', 'x'.repeat(ID_MAX_LENGTH + 1), `user_id: must NOT have more than ${ID_MAX_LENGTH} characters`],
    ['with NUL', 'a\u0000', 'user_id: contains a NUL character (\\u0000), which cannot be stored'],
    ['with a lone surrogate', '\udc00', 'user_id: contains a lone UTF-16 surrogate (\\ud800 to \\udfff), which is not a character'],
  ])('refuses an id %s with a 400 naming the parameter', (_case, id, detail) => {
    expect(() => pipe.transform(id, param('user_id'))).toThrow(expect.objectContaining({ code: 'invalid_request', detail }));
  });
});

describe('checkedIdentifier', () => {
  it('names the id as the caller says (an index, a line)', () => {
    expect(() => checkedIdentifier('line 7', '')).toThrow(expect.objectContaining({ detail: 'line 7: must not be empty' }));
  });
});
