import { Readable } from 'node:stream';
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
    [{ user_ids: ['a', ''] }, 'user_ids.1: must not be empty'],
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
