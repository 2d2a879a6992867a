import { gzipSync } from 'node:zlib';
import { admin, api, createAccount, expectJson, expectProblem, parseCsv, server, type TestAccount } from './support';
import { BODY_LIMIT_DETAIL, eventuallyInHistory, ndjsonText, patchProfile, startImport, track, uniqueId, userPath } from './support-people';
import { addUserIds, completedJob, createSegment, download, expectAccepted, exportMembership } from './support-segments';

/**
 * What an answer holds cannot be turned against whoever opens it or kept where it should not be: CSV
 * cells a spreadsheet would run as formulas are neutralised in every CSV answer and export file
 * (docs/api-contract.md#response-formats), and every answer, export downloads included, tells browsers
 * and caches neither to sniff nor to store it.
 */

let account: TestAccount;

beforeAll(async () => {
  account = await createAccount();
});

/** A formula a spreadsheet would run, as an end user could put it in a profile or an event. */
const FORMULA = '=HYPERLINK("http://evil.test","open")';
const NEUTRALISED = `"'=HYPERLINK(""http://evil.test"",""open"")"`;

describe('CSV cells that a spreadsheet would run as formulas', () => {
  it('are neutralised in a CSV answer, header cells included, while a negative number stays a number', async () => {
    const userId = uniqueId('formula');
    await patchProfile(account, userId, { '@name': FORMULA, balance: -5, note: '-1+2' });
    const response = await api(account, 'GET', userPath(userId, 'profile'), { headers: { Accept: 'text/csv' } });
    const text = await response.text();
    expect(text).toContain(NEUTRALISED);
    // Properties come in the store's order: compared as cells by column.
    expect(parseCsv(text).rows).toEqual([{ "'@name": `'${FORMULA}`, balance: '-5', note: "'-1+2" }]);
  });

  it('are neutralised in an event export file', async () => {
    const userId = uniqueId('formula');
    await track(account, userId, { name: '+cmd', timestamp: '2024-03-01T00:00:00Z', attributes: { link: FORMULA, balance: -5 } });
    await eventuallyInHistory(account, userId, (event) => event.name === '+cmd');
    const body = {
      format: 'csv',
      conditions: [['user_id', '==', userId]],
      start_time: '2024-03-01T00:00:00Z',
      end_time: '2024-03-02T00:00:00Z',
    };
    const { completed } = await completedJob(
      account,
      await expectAccepted(account, await api(account, 'POST', '/export/events', { json: body })),
    );
    const [header, row] = (await download(completed.attributes['signed_s3_url'] as string)).split('\r\n');
    expect(header).toBe('name,timestamp,user_id,id,attributes.balance,attributes.link');
    // The event's id between the user and the attributes.
    const idCell = row.slice(`"'+cmd",2024-03-01T00:00:00.000Z,${userId},`.length, -`,-5,${NEUTRALISED}`.length);
    expect(row).toBe(`"'+cmd",2024-03-01T00:00:00.000Z,${userId},${idCell},-5,${NEUTRALISED}`);
    expect(idCell).toMatch(/^[\w:-]+$/);
  });

  it('are neutralised in a membership export file, header cells included', async () => {
    const userId = `@${uniqueId('member')}`;
    await patchProfile(account, userId, { '=plan': FORMULA, balance: -5 });
    const segment = await createSegment(account);
    await addUserIds(account, segment.id, [userId]);
    const { link } = await exportMembership(account, segment.id, { format: 'csv', property_names: ['=plan', 'balance'] });
    expect((await download(link)).split('\n')).toEqual([`user_id,"'=plan",balance`, `"'${userId}",${NEUTRALISED},-5`, '']);
  });
});

/** The headers of every answer of the API; `fetch` joins repeated headers, so each must be there once. */
function expectSafeHeaders(response: Response): void {
  const seen = {
    url: response.url,
    nosniff: response.headers.get('x-content-type-options'),
    caching: response.headers.get('cache-control'),
  };
  expect(seen).toEqual({ url: response.url, nosniff: 'nosniff', caching: 'no-store' });
}

describe('every answer', () => {
  it('carries X-Content-Type-Options: nosniff and Cache-Control: no-store once, problems included', async () => {
    const base = server().baseUrl;
    const answers = [
      await api(account, 'GET', '/tags'),
      await api(account, 'GET', '/tags', { headers: { Accept: 'text/csv' } }),
      await api(account, 'GET', '/tags/no-such-tag'),
      await api(account, 'POST', '/segments', { json: {} }),
      await fetch(`${base}/v2/accounts/${account.id}/tags`),
      await fetch(`${base}/v2/accounts/%E0%A4%A/flows`),
      await admin('GET', '/admin/v1/accounts'),
    ];
    for (const answer of answers) {
      await answer.arrayBuffer();
      expectSafeHeaders(answer);
    }
  });

  it('includes the download of an export file, by its signed link', async () => {
    const body = { format: 'json', conditions: [], start_time: '2024-03-01T00:00:00Z', end_time: '2024-03-01T00:00:01Z' };
    const { completed } = await completedJob(
      account,
      await expectAccepted(account, await api(account, 'POST', '/export/events', { json: body })),
    );
    const downloaded = await fetch(completed.attributes['signed_s3_url'] as string);
    expect(downloaded.status).toBe(200);
    await downloaded.arrayBuffer();
    expectSafeHeaders(downloaded);
  });

  it('but the API reference and the OpenAPI document, which hold no account data, which browsers may cache a while', async () => {
    for (const path of ['/openapi.json', '/docs']) {
      const response = await fetch(`${server().baseUrl}${path}`);
      await response.arrayBuffer();
      expect({ path, nosniff: response.headers.get('x-content-type-options'), caching: response.headers.get('cache-control') }).toEqual({
        path,
        nosniff: 'nosniff',
        caching: 'public, max-age=300',
      });
    }
  });
});

/** `decoded` bytes of zeros as gzip: members of 64 MB each, one after the other (each a few KB, so a 10 GB body is about 10 MB sent). */
function gzipOfZeros(decoded: number): Buffer {
  const member = gzipSync(Buffer.alloc(64 * 1024 * 1024));
  return Buffer.concat(Array.from({ length: Math.ceil(decoded / (64 * 1024 * 1024)) }, () => member));
}

describe('Content-Encoding of a body', () => {
  const encoded = (contentType: string, body: Buffer, encoding = 'gzip') => ({
    body,
    headers: { 'Content-Type': contentType, 'Content-Encoding': encoding },
  });

  it('takes a gzip track and a gzip NDJSON import, decoded', async () => {
    const userId = uniqueId('gzip');
    const event = { name: 'zipped', timestamp: '2024-03-01T00:00:00Z', attributes: { n: 1 } };
    expect(
      await expectJson(
        await api(account, 'POST', userPath(userId, 'events'), encoded('application/json', gzipSync(JSON.stringify(event)))),
        200,
      ),
    ).toEqual({
      status: 200,
      title: 'OK',
    });
    const rows = ndjsonText([{ user_id: userId, name: 'imported zipped', timestamp: '2024-03-01T00:00:01Z' }]);
    const { completed } = await completedJob(account, await startImport(account, 'events', encoded('application/ndjson', gzipSync(rows))));
    expect(completed.attributes).toMatchObject({ ingestions_completed: 1, ingestions_failed: 0 });
    await eventuallyInHistory(account, userId, (tracked) => tracked.name === 'imported zipped');
    await eventuallyInHistory(account, userId, (tracked) => tracked.name === 'zipped');
  });

  it('refuses with 413, at once, 10 MB of gzip that decode to 10 GB, on track and on an import', async () => {
    const bomb = gzipOfZeros(10 * 1024 ** 3);
    expect(bomb.length).toBeLessThan(20 * 1024 * 1024);
    for (const [path, contentType] of [
      [userPath(uniqueId('bomb'), 'events'), 'application/json'],
      ['/import/events', 'application/ndjson'],
    ]) {
      const started = Date.now();
      await expectProblem(await api(account, 'POST', path, encoded(contentType, bomb)), 413, BODY_LIMIT_DETAIL);
      expect((Date.now() - started) / 1000).toBeLessThan(10);
    }
  });

  it.each(['br', 'deflate', 'compress', 'zstd'])('answers %s with 415 naming it and the codings taken', async (encoding) => {
    const response = await api(
      account,
      'POST',
      userPath(uniqueId('br'), 'events'),
      encoded('application/json', Buffer.from('{}'), encoding),
    );
    await expectProblem(response, 415, `Content-Encoding '${encoding}' is not supported; send the body as identity or gzip`);
    expect(response.headers.get('accept-encoding')).toBe('identity, gzip');
  });
});
