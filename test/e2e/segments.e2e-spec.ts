import { randomUUID } from 'node:crypto';
import { api, createAccount, eventually, expectJson, expectProblem, parseCsv, type ApiInit, type TestAccount } from './support';
import {
  addUserIds,
  createSegment,
  expectAbsoluteUrl,
  handBuiltMultipart,
  memberIds,
  removeUserIds,
  SEGMENT_FIELDS,
  SEGMENT_TIMESTAMP,
  segmentPath,
  submitUserIds,
  type Segment,
  type UserIdOperation,
} from './support-segments';

function expectSegmentTimestamp(value: string): void {
  expect(value).toMatch(SEGMENT_TIMESTAMP);
  expect(new Date(value).toISOString()).toBe(value);
}

describe('segments', () => {
  let account: TestAccount;

  beforeAll(async () => {
    account = await createAccount();
  });

  describe('create, read, update, delete', () => {
    it('creates a segment (201) with exactly the Segment fields, ISO timestamps and an absolute url', async () => {
      const response = await api(account, 'POST', '/segments', { json: { name: 'Trial users', description: 'In their first 14 days' } });
      const segment = await expectJson<Segment>(response, 201);

      expect(Object.keys(segment).sort()).toEqual(SEGMENT_FIELDS);
      expect(segment).toMatchObject({ name: 'Trial users', description: 'In their first 14 days' });
      expect(typeof segment.id).toBe('string');
      expect(segment.id.length).toBeGreaterThan(0);
      expectSegmentTimestamp(segment.created_at);
      expectSegmentTimestamp(segment.updated_at);
      expect(typeof segment.created_by).toBe('string');
      expect(typeof segment.updated_by).toBe('string');
      expectAbsoluteUrl(segment.url, `/v2/accounts/${encodeURIComponent(account.id)}/segments/${encodeURIComponent(segment.id)}`);
    });

    it('creates a segment with only a name; description is still a string', async () => {
      const segment = await expectJson<Segment>(await api(account, 'POST', '/segments', { json: { name: 'No description' } }), 201);
      expect(Object.keys(segment).sort()).toEqual(SEGMENT_FIELDS);
      expect(typeof segment.description).toBe('string');
    });

    it('accepts application/json with a charset parameter', async () => {
      const response = await api(account, 'POST', '/segments', {
        body: JSON.stringify({ name: 'Charset' }),
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
      });
      expect((await expectJson<Segment>(response, 201)).name).toBe('Charset');
    });

    it('gets the segment and lists it', async () => {
      const created = await createSegment(account, { description: 'readable' });

      const fetched = await expectJson<Segment>(await api(account, 'GET', segmentPath(created.id)), 200);
      expect(fetched).toEqual(created);

      const listed = await expectJson<Segment[]>(await api(account, 'GET', '/segments'), 200);
      expect(Array.isArray(listed)).toBe(true);
      expect(listed.find((segment) => segment.id === created.id)).toEqual(created);
      for (const segment of listed) expect(Object.keys(segment).sort()).toEqual(SEGMENT_FIELDS);
    });

    it('renders a segment as CSV under Accept: text/csv', async () => {
      const created = await createSegment(account, { description: 'as csv' });
      const response = await api(account, 'GET', segmentPath(created.id), { headers: { Accept: 'text/csv' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/csv\b/);
      const csv = parseCsv(await response.text());
      expect([...csv.header].sort()).toEqual(SEGMENT_FIELDS);
      expect(csv.rows).toEqual([{ ...created }]);
    });

    it('PATCH changes name and description, moves updated_at strictly forward and keeps created_at', async () => {
      const created = await createSegment(account, { name: 'Before', description: 'old' });
      // Let the clock pass the creation time so that "strictly later" is observable.
      await eventually(() => expect(Date.now()).toBeGreaterThan(Date.parse(created.updated_at)), 5_000, 5);

      const response = await api(account, 'PATCH', segmentPath(created.id), { json: { name: 'After', description: 'new' } });
      const updated = await expectJson<Segment>(response, 200);
      expect(Object.keys(updated).sort()).toEqual(SEGMENT_FIELDS);
      expect(updated).toMatchObject({
        id: created.id,
        name: 'After',
        description: 'new',
        created_at: created.created_at,
        url: created.url,
      });
      expectSegmentTimestamp(updated.updated_at);
      expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));

      const fetched = await expectJson<Segment>(await api(account, 'GET', segmentPath(created.id)), 200);
      expect(fetched).toEqual(updated);
    });

    it('PATCH with only description keeps the name', async () => {
      const created = await createSegment(account, { name: 'Keeps its name' });
      const updated = await expectJson<Segment>(
        await api(account, 'PATCH', segmentPath(created.id), { json: { description: 'only this changes' } }),
        200,
      );
      expect(updated).toMatchObject({ name: 'Keeps its name', description: 'only this changes' });
    });

    it('DELETE answers the status acknowledgement, then the segment is gone', async () => {
      const created = await createSegment(account);

      const response = await api(account, 'DELETE', segmentPath(created.id));
      expect(await expectJson(response, 200)).toEqual({ status: 200, title: 'OK' });

      await expectProblem(await api(account, 'GET', segmentPath(created.id)), 404);
      const listed = await expectJson<Segment[]>(await api(account, 'GET', '/segments'), 200);
      expect(listed.map((segment) => segment.id)).not.toContain(created.id);
      await expectProblem(await api(account, 'DELETE', segmentPath(created.id)), 404);
    });

    it('does not show one account the segments of another', async () => {
      const other = await createAccount();
      const created = await createSegment(account);
      const listed = await expectJson<Segment[]>(await api(other, 'GET', '/segments'), 200);
      expect(listed.map((segment) => segment.id)).not.toContain(created.id);
      await expectProblem(await api(other, 'GET', segmentPath(created.id)), 404);
    });
  });

  describe('invalid segment requests', () => {
    let segment: Segment;

    beforeAll(async () => {
      segment = await createSegment(account);
    });

    it('rejects a create without name (400 naming name)', async () => {
      await expectProblem(await api(account, 'POST', '/segments', { json: { description: 'nameless' } }), 400, /name/);
    });

    it.each([
      ['name', { name: 42 }, /name/],
      ['description', { name: 'ok', description: 42 }, /description/],
      ['name (null)', { name: null }, /name/],
    ])('rejects a create with a wrongly typed %s (400 naming it)', async (_field, body, detail) => {
      await expectProblem(await api(account, 'POST', '/segments', { json: body }), 400, detail);
    });

    it('rejects a JSON body that is not an object (400)', async () => {
      await expectProblem(await api(account, 'POST', '/segments', { json: ['name'] }), 400);
    });

    it('rejects malformed JSON (400)', async () => {
      const response = await api(account, 'POST', '/segments', { body: '{"name": "half', headers: { 'Content-Type': 'application/json' } });
      await expectProblem(response, 400);
    });

    it.each([
      ['application/ndjson', '{"name":"from ndjson"}\n'],
      ['text/csv', 'name\nfrom csv\n'],
      ['text/plain', 'name=plain'],
    ])('rejects a create sent as %s (415, JSON only)', async (contentType, body) => {
      await expectProblem(await api(account, 'POST', '/segments', { body, headers: { 'Content-Type': contentType } }), 415);
    });

    it('rejects a PATCH with a wrongly typed field (400 naming it) and leaves the segment unchanged', async () => {
      await expectProblem(await api(account, 'PATCH', segmentPath(segment.id), { json: { name: 42 } }), 400, /name/);
      await expectProblem(await api(account, 'PATCH', segmentPath(segment.id), { json: { description: ['x'] } }), 400, /description/);
      expect(await expectJson(await api(account, 'GET', segmentPath(segment.id)), 200)).toEqual(segment);
    });

    it('rejects a PATCH sent as CSV (415)', async () => {
      const response = await api(account, 'PATCH', segmentPath(segment.id), { body: 'name\nx\n', headers: { 'Content-Type': 'text/csv' } });
      await expectProblem(response, 415);
    });

    describe.each([
      ['an unknown id', 'no-such-segment'],
      ['a well-formed unknown id', randomUUID()],
    ])('for %s', (_label, unknownId) => {
      it.each([
        ['get', 'GET', '', undefined],
        ['patch', 'PATCH', '', { json: { name: 'x' } }],
        ['delete', 'DELETE', '', undefined],
        ['add_user_ids', 'POST', 'add_user_ids', { json: { user_ids: ['u1'] } }],
        ['remove_user_ids', 'POST', 'remove_user_ids', { json: { user_ids: ['u1'] } }],
        ['segment_membership_export', 'POST', 'segment_membership_export', { json: {} }],
      ] as const)('%s answers 404 naming the segment', async (_label, method, operation, init) => {
        const response = await api(account, method, segmentPath(unknownId, operation), init);
        await expectProblem(response, 404, unknownId);
      });
    });
  });

  describe('add_user_ids and remove_user_ids', () => {
    type Encoding = (ids: readonly string[]) => ApiInit;

    const csvFile = (ids: readonly string[]): string => `user_id\n${ids.join('\n')}\n`;
    const ndjsonFile = (ids: readonly string[]): string => `${ids.map((id) => JSON.stringify(id)).join('\n')}\n`;
    const formData = (content: string, type: string, fileName: string): FormData => {
      const form = new FormData();
      form.append('file', new Blob([content], { type }), fileName);
      return form;
    };

    const encodings: [string, Encoding][] = [
      ['JSON { user_ids }', (ids) => ({ json: { user_ids: ids } })],
      [
        'NDJSON strings with blank lines and indentation',
        (ids) => ({
          body: `\n${ids.map((id, index) => `${index % 2 === 0 ? '  ' : '\t'}${JSON.stringify(id)}  `).join('\n\n')}\n   \n`,
          headers: { 'Content-Type': 'application/ndjson' },
        }),
      ],
      ['CSV with header user_id', (ids) => ({ body: csvFile(ids), headers: { 'Content-Type': 'text/csv' } })],
      [
        'CSV with header userId, CRLF and padded cells',
        (ids) => ({ body: `userId\r\n${ids.map((id) => ` ${id} `).join('\r\n')}\r\n\r\n`, headers: { 'Content-Type': 'text/csv' } }),
      ],
      ['CSV without header', (ids) => ({ body: ids.join('\n'), headers: { 'Content-Type': 'text/csv' } })],
      ['multipart/form-data with a CSV file', (ids) => ({ body: formData(csvFile(ids), 'text/csv', 'ids.csv') })],
      ['multipart/form-data with an NDJSON file', (ids) => ({ body: formData(ndjsonFile(ids), 'application/x-ndjson', 'ids.ndjson') })],
      [
        'multipart/mixed with a CSV file',
        (ids) => handBuiltMultipart('mixed', { field: 'file', fileName: 'ids.csv', contentType: 'text/csv', content: csvFile(ids) }),
      ],
      [
        'multipart/mixed with an NDJSON file',
        (ids) =>
          handBuiltMultipart('mixed', {
            field: 'file',
            fileName: 'ids.ndjson',
            contentType: 'application/x-ndjson',
            content: ndjsonFile(ids),
          }),
      ],
    ];

    it.each(encodings)('adds user ids sent as %s', async (_label, encode) => {
      const segment = await createSegment(account);
      const ids = ['add-1', 'add-2', 'add-3'].map((id) => `${id}-${segment.id}`);

      const completed = await submitUserIds(account, segment.id, 'add', encode(ids));
      expect(completed).toMatchObject({ ingestions_completed: ids.length, ingestions_failed: 0, requests_failed: 0 });
      expect(await memberIds(account, segment.id)).toEqual([...ids].sort());
    });

    it.each(encodings)('removes user ids sent as %s', async (_label, encode) => {
      const segment = await createSegment(account);
      const ids = ['rm-1', 'rm-2', 'rm-3', 'rm-4'].map((id) => `${id}-${segment.id}`);
      await addUserIds(account, segment.id, ids);

      const completed = await submitUserIds(account, segment.id, 'remove', encode([ids[0], ids[2]]));
      expect(completed).toMatchObject({ ingestions_failed: 0, requests_failed: 0 });
      expect(await memberIds(account, segment.id)).toEqual([ids[1], ids[3]].sort());
    });

    it('adds to earlier members; adding or removing the same id twice is harmless', async () => {
      const segment = await createSegment(account);

      await addUserIds(account, segment.id, ['alice', 'bob']);
      await addUserIds(account, segment.id, ['bob', 'carol']);
      await addUserIds(account, segment.id, ['carol', 'carol']);
      expect(await memberIds(account, segment.id)).toEqual(['alice', 'bob', 'carol']);

      await removeUserIds(account, segment.id, ['alice']);
      await removeUserIds(account, segment.id, ['alice']);
      await removeUserIds(account, segment.id, ['never-added']);
      expect(await memberIds(account, segment.id)).toEqual(['bob', 'carol']);

      await addUserIds(account, segment.id, ['alice']);
      expect(await memberIds(account, segment.id)).toEqual(['alice', 'bob', 'carol']);
    });

    it('keeps the membership of each segment apart', async () => {
      const first = await createSegment(account);
      const second = await createSegment(account);
      await addUserIds(account, first.id, ['only-in-first', 'in-both']);
      await addUserIds(account, second.id, ['in-both']);
      await removeUserIds(account, second.id, ['only-in-first']);

      expect(await memberIds(account, first.id)).toEqual(['in-both', 'only-in-first']);
      expect(await memberIds(account, second.id)).toEqual(['in-both']);
    });

    it('adds 25 000 ids sent as CSV in one job', async () => {
      const segment = await createSegment(account);
      const ids = Array.from({ length: 25_000 }, (_, index) => `bulk-${String(index).padStart(5, '0')}`);

      const completed = await submitUserIds(
        account,
        segment.id,
        'add',
        { body: `user_id\n${ids.join('\n')}\n`, headers: { 'Content-Type': 'text/csv' } },
        150_000,
      );
      expect(completed).toMatchObject({ ingestions_completed: 25_000, ingestions_failed: 0, requests_failed: 0 });
      expect(await memberIds(account, segment.id)).toEqual(ids);
    }, 240_000);

    describe.each(['add', 'remove'] satisfies UserIdOperation[])('invalid %s_user_ids requests', (operation) => {
      let segment: Segment;
      const send = (init: ApiInit): Promise<Response> => api(account, 'POST', segmentPath(segment.id, `${operation}_user_ids`), init);
      const ndjson = (body: string): ApiInit => ({ body, headers: { 'Content-Type': 'application/ndjson' } });

      beforeAll(async () => {
        segment = await createSegment(account);
      });

      it.each([
        ['without user_ids', {}],
        ['with user_ids not an array', { user_ids: 'alice' }],
        ['with a number among user_ids', { user_ids: ['alice', 7] }],
        ['with an empty id', { user_ids: ['alice', ''] }],
      ])('rejects JSON %s (400 naming user_ids)', async (_label, body) => {
        await expectProblem(await send({ json: body }), 400, /user_ids/);
      });

      it.each([
        ['a number', '"alice"\n42\n"bob"\n'],
        ['malformed JSON', '"alice"\n"bob\n"carol"\n'],
        ['an object', '"alice"\n{"user_id":"bob"}\n'],
        ['an empty id', '"alice"\n""\n'],
      ])('rejects NDJSON whose line 2 is %s (400 naming line 2)', async (_label, body) => {
        await expectProblem(await send(ndjson(body)), 400, /line 2\b/i);
      });

      it('rejects malformed JSON (400)', async () => {
        await expectProblem(await send({ body: '{"user_ids": ["a"', headers: { 'Content-Type': 'application/json' } }), 400);
      });

      it('rejects a multipart request without a file part (400 naming file)', async () => {
        const form = new FormData();
        form.append('upload', new Blob(['user_id\nalice\n'], { type: 'text/csv' }), 'ids.csv');
        await expectProblem(await send({ body: form }), 400, /file/);
      });

      it('rejects a multipart/mixed request whose part is not named file (400 naming file)', async () => {
        const init = handBuiltMultipart('mixed', { field: 'attachment', fileName: 'ids.csv', contentType: 'text/csv', content: 'alice\n' });
        await expectProblem(await send(init), 400, /file/);
      });

      it('rejects text/plain (415)', async () => {
        await expectProblem(await send({ body: 'alice\nbob\n', headers: { 'Content-Type': 'text/plain' } }), 415);
      });
    });

    it('a rejected request changes nothing: the segment keeps its members', async () => {
      const segment = await createSegment(account);
      await addUserIds(account, segment.id, ['stays']);

      const badAdd = await api(account, 'POST', segmentPath(segment.id, 'add_user_ids'), {
        body: '"first-is-fine"\n42\n',
        headers: { 'Content-Type': 'application/ndjson' },
      });
      await expectProblem(badAdd, 400, /line 2\b/i);
      const badRemove = await api(account, 'POST', segmentPath(segment.id, 'remove_user_ids'), {
        body: '"stays"\n{\n',
        headers: { 'Content-Type': 'application/ndjson' },
      });
      await expectProblem(badRemove, 400, /line 2\b/i);

      expect(await memberIds(account, segment.id)).toEqual(['stays']);
    });
  });
});
