import { Readable } from 'node:stream';
import { ID_MAX_LENGTH } from '@guidepost/contracts-http';
import type { InboundBody } from './inbound-body';
import { userIdsOf } from './user-ids-of';

const records = (format: 'ndjson' | 'csv', text: string): InboundBody => ({
  kind: 'records',
  format,
  origin: 'body',
  stream: Readable.from([Buffer.from(text)]),
});

async function idsOf(body: InboundBody): Promise<string[]> {
  const ids: string[] = [];
  for await (const id of userIdsOf(body)) ids.push(id);
  return ids;
}

describe('userIdsOf', () => {
  it('reads { "user_ids": [...] } from JSON', async () => {
    expect(await idsOf({ kind: 'json', value: { user_ids: ['a', 'b'] } })).toEqual(['a', 'b']);
  });

  it.each([
    [{ ids: ['a'] }, 'user_ids: is required'],
    [{ user_ids: 'a' }, 'user_ids: must be array'],
    [{ user_ids: ['a', 7] }, 'user_ids.1: must be string'],
    [{ user_ids: ['a', ''] }, 'user_ids[1]: must not be empty'],
    [{ user_ids: ['a', 'b', 'x'.repeat(ID_MAX_LENGTH + 1)] }, `user_ids[2]: must NOT have more than ${ID_MAX_LENGTH} characters`],
    [{ user_ids: ['a\u0000b'] }, expect.stringMatching(/^user_ids\[0\]: contains a NUL character/)],
    [{ user_ids: ['a\ud800b'] }, expect.stringMatching(/^user_ids\[0\]: contains a lone UTF-16 surrogate/)],
  ])('names the field at fault in JSON %j', async (value, detail) => {
    await expect(idsOf({ kind: 'json', value })).rejects.toMatchObject({ code: 'invalid_request', detail });
  });

  it('reads one JSON string per NDJSON line, ignoring blank lines and indentation', async () => {
    expect(await idsOf(records('ndjson', '"a"\n\n   "b"\n'))).toEqual(['a', 'b']);
  });

  it('names the NDJSON line that is not a user id string', async () => {
    await expect(idsOf(records('ndjson', '"a"\n{"id":"b"}\n'))).rejects.toMatchObject({ detail: expect.stringMatching(/^line 2: /) });
    await expect(idsOf(records('ndjson', '"a"\n""\n'))).rejects.toMatchObject({ detail: expect.stringMatching(/^line 2: /) });
  });

  it(`takes ids of up to ${ID_MAX_LENGTH} characters, counting a surrogate pair as one`, async () => {
    const longest = ['x'.repeat(ID_MAX_LENGTH), '😀'.repeat(ID_MAX_LENGTH)];
    expect(await idsOf({ kind: 'json', value: { user_ids: longest } })).toEqual(longest);
    expect(await idsOf(records('ndjson', longest.map((id) => JSON.stringify(id)).join('\n')))).toEqual(longest);
    expect(await idsOf(records('csv', longest.join('\n')))).toEqual(longest);
  });

  it.each([
    [
      'an NDJSON id that is too long',
      'ndjson',
      `"a"\n"${'x'.repeat(ID_MAX_LENGTH + 1)}"\n`,
      /^line 2: must NOT have more than 255 characters$/,
    ],
    ['an NDJSON id with NUL', 'ndjson', '"a"\n\n"b\\u0000"\n', /^line 3: contains a NUL character/],
    [
      'a CSV id that is too long',
      'csv',
      `user_id\na\n${'x'.repeat(ID_MAX_LENGTH + 1)}\n`,
      /^line 3: must NOT have more than 255 characters$/,
    ],
  ] as const)('names the line of %s', async (_case, format, text, detail) => {
    await expect(idsOf(records(format, text))).rejects.toMatchObject({ code: 'invalid_request', detail: expect.stringMatching(detail) });
  });

  it.each(['user_id', 'userId'])('reads CSV with the optional %s header', async (header) => {
    expect(await idsOf(records('csv', `${header}\na\n\n  b  \n`))).toEqual(['a', 'b']);
  });

  it('reads CSV without a header, the first line being an id', async () => {
    expect(await idsOf(records('csv', 'a\nb'))).toEqual(['a', 'b']);
  });

  it('treats user_id as an id anywhere but the first line', async () => {
    expect(await idsOf(records('csv', 'a\nuser_id\n'))).toEqual(['a', 'user_id']);
  });

  it('names the CSV line holding more than one value', async () => {
    await expect(idsOf(records('csv', 'user_id\na\nb,c\n'))).rejects.toMatchObject({ detail: expect.stringMatching(/^line 3: /) });
  });

  it('requires a body', async () => {
    await expect(idsOf({ kind: 'empty' })).rejects.toMatchObject({ detail: 'user_ids: is required' });
  });
});
