import { api, createAccount, expectJson, expectProblem, parseCsv, server, type TestAccount } from './support';
import {
  addUserIds,
  createSegment,
  download,
  exportMembership,
  ndjsonObjects,
  ONE_WEEK_MS,
  segmentPath,
  type MembershipExport,
  type Segment,
} from './support-segments';

const MEMBERS = ['exp-alice', 'exp-bob', 'exp-carol'];

/** The query parameter of a signed link that carries `name` (e.g. the signature or the expiry). */
function linkParameter(link: string, name: RegExp): string {
  const parameter = [...new URL(link).searchParams.keys()].find((key) => name.test(key));
  if (parameter === undefined) throw new Error(`no query parameter matching ${String(name)} in the export link ${link}`);
  return parameter;
}

function withParameter(link: string, parameter: string, value: string): string {
  const url = new URL(link);
  url.searchParams.set(parameter, value);
  return url.toString();
}

/**
 * A link Guidepost signs itself (standalone: served under the API's own origin) is refused with a
 * Problem Details 403. An S3 presigned link (distributed shape: MinIO) is refused by the store, with
 * its own XML error: 403, or 400 for parameters it cannot even read; either way no file.
 */
async function expectRefusedLink(link: string): Promise<void> {
  const response = await fetch(link);
  if (new URL(link).origin === new URL(server().baseUrl).origin) {
    await expectProblem(response, 403);
    return;
  }
  const body = await response.text();
  expect([400, 403]).toContain(response.status);
  expect(body).toMatch(/<Error>\s*<Code>/);
}

/** The same kind of value (seconds, milliseconds or ISO text), one hour in the past. */
function pastExpiry(current: string): string {
  const anHourAgo = Date.now() - 60 * 60 * 1000;
  if (!/^\d+$/.test(current)) return new Date(anHourAgo).toISOString();
  return String(current.length > 11 ? anHourAgo : Math.floor(anHourAgo / 1000));
}

describe('segment_membership_export', () => {
  let account: TestAccount;
  let segment: Segment;

  beforeAll(async () => {
    account = await createAccount();
    segment = await createSegment(account);
    await addUserIds(account, segment.id, MEMBERS);
  });

  function expectLinkAttributes(result: MembershipExport, rows: number): void {
    expect(result.attributes['rows']).toBe(rows);
    const expiresAt = result.attributes['expires_at'];
    expect(typeof expiresAt).toBe('string');
    const expiry = Date.parse(expiresAt as string);
    expect(Number.isNaN(expiry)).toBe(false);
    expect(Math.abs(expiry - (Date.now() + ONE_WEEK_MS))).toBeLessThan(60_000);
  }

  it.each([
    ['by default', {}],
    ['with format json', { format: 'json' }],
    ['with format json and empty property_names', { format: 'json', property_names: [] }],
  ])('exports NDJSON %s: a one-week link, rows, one { user_id } line per member', async (_label, body) => {
    const result = await exportMembership(account, segment.id, body);
    expectLinkAttributes(result, MEMBERS.length);

    const lines = ndjsonObjects(await download(result.link));
    expect(lines).toHaveLength(MEMBERS.length);
    for (const line of lines) expect(Object.keys(line as object)).toEqual(['user_id']);
    expect(lines.map((line) => (line as { user_id: string }).user_id).sort()).toEqual(MEMBERS);
  });

  // These members have no profile, so every requested property is a null, rendered as an empty cell
  // (members with profiles: see 'with profiles written through the profile API' below).
  it('exports CSV with the requested properties: header user_id,email and one row per member', async () => {
    const result = await exportMembership(account, segment.id, { format: 'csv', property_names: ['email'] });
    expectLinkAttributes(result, MEMBERS.length);

    const text = await download(result.link);
    expect(text.split(/\r?\n/)[0]).toBe('user_id,email');
    const csv = parseCsv(text);
    expect(csv.header).toEqual(['user_id', 'email']);
    const rows = [...csv.rows].sort((left, right) => left['user_id'].localeCompare(right['user_id']));
    expect(rows).toEqual(MEMBERS.map((member) => ({ user_id: member, email: '' })));
  });

  it('exports CSV with only user_id when property_names is omitted', async () => {
    const result = await exportMembership(account, segment.id, { format: 'csv' });
    const csv = parseCsv(await download(result.link));
    expect(csv.header).toEqual(['user_id']);
    expect(csv.rows.map((row) => row['user_id']).sort()).toEqual(MEMBERS);
  });

  it('exports an empty segment: rows 0 and no user lines', async () => {
    const empty = await createSegment(account);
    const result = await exportMembership(account, empty.id);
    expectLinkAttributes(result, 0);
    expect(ndjsonObjects(await download(result.link))).toEqual([]);
  });

  it('completes when an email address is given, and the link still works', async () => {
    const result = await exportMembership(account, segment.id, { email: 'owner@example.com' });
    expectLinkAttributes(result, MEMBERS.length);
    expect(ndjsonObjects(await download(result.link))).toHaveLength(MEMBERS.length);
  });

  it('the link is not tied to credentials and can be downloaded again', async () => {
    const { link } = await exportMembership(account, segment.id);
    expect(await download(link)).toBe(await download(link));
  });

  it('refuses a link whose signature was tampered with (403)', async () => {
    const { link } = await exportMembership(account, segment.id);
    const parameter = linkParameter(link, /sig|signature|token|hmac/i);
    const signature = new URL(link).searchParams.get(parameter) ?? '';
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    await expectRefusedLink(withParameter(link, parameter, flipped));
    await expectRefusedLink(withParameter(link, parameter, ''));
  });

  it('refuses a link whose expiry is in the past (403)', async () => {
    const { link } = await exportMembership(account, segment.id);
    const parameter = linkParameter(link, /exp/i);
    const expired = withParameter(link, parameter, pastExpiry(new URL(link).searchParams.get(parameter) ?? ''));
    await expectRefusedLink(expired);
  });

  it.each([
    ['format', { format: 'xml' }, /format/],
    ['format (not a string)', { format: 42 }, /format/],
    ['property_names', { property_names: 'x' }, /property_names/],
    ['property_names (not strings)', { property_names: ['email', 7] }, /property_names/],
    ['email', { email: 'not-an-email' }, /email/],
    ['email (not a string)', { email: ['owner@example.com', 5] }, /email/],
  ])('rejects an invalid %s (400 naming it)', async (_label, body, detail) => {
    await expectProblem(await api(account, 'POST', segmentPath(segment.id, 'segment_membership_export'), { json: body }), 400, detail);
  });

  it('rejects malformed JSON (400) and non-JSON bodies (415)', async () => {
    const path = segmentPath(segment.id, 'segment_membership_export');
    await expectProblem(await api(account, 'POST', path, { body: '{"format": ', headers: { 'Content-Type': 'application/json' } }), 400);
    await expectProblem(
      await api(account, 'POST', path, { body: '{"format":"csv"}\n', headers: { 'Content-Type': 'application/ndjson' } }),
      415,
    );
    await expectProblem(await api(account, 'POST', path, { body: 'format\ncsv\n', headers: { 'Content-Type': 'text/csv' } }), 415);
  });
});

describe('segment_membership_export with profiles written through the profile API', () => {
  let account: TestAccount;
  let segment: Segment;
  const ann = { email: 'ann@example.com', plan: 'pro', seats: 3, beta: true, address: { city: 'Lyon, "centre"' }, hidden: 'not asked' };
  const ben = { email: 'ben@example.com', plan: null, seats: 0 };
  // cid is a member without a profile.
  const members = ['prof-ann', 'prof-ben', 'prof-cid'];

  beforeAll(async () => {
    account = await createAccount();
    segment = await createSegment(account);
    await addUserIds(account, segment.id, members);
    for (const [userId, properties] of [
      ['prof-ann', ann],
      ['prof-ben', ben],
    ] as const) {
      const response = await api(account, 'PATCH', `/users/${userId}/profile`, { json: properties });
      expect(await expectJson(response, 200)).toEqual({ status: 200, title: 'OK' });
    }
  });

  const byUser = <T extends Record<string, unknown>>(rows: T[]): T[] =>
    [...rows].sort((left, right) => String(left['user_id']).localeCompare(String(right['user_id'])));

  it('exports JSON lines with the requested properties, typed as written; null when absent', async () => {
    const result = await exportMembership(account, segment.id, {
      format: 'json',
      property_names: ['email', 'plan', 'seats', 'beta', 'address'],
    });
    const lines = ndjsonObjects(await download(result.link)) as Record<string, unknown>[];
    expect(byUser(lines)).toEqual([
      { user_id: 'prof-ann', email: ann.email, plan: 'pro', seats: 3, beta: true, address: ann.address },
      { user_id: 'prof-ben', email: ben.email, plan: null, seats: 0, beta: null, address: null },
      { user_id: 'prof-cid', email: null, plan: null, seats: null, beta: null, address: null },
    ]);
  });

  it('exports CSV with the requested properties: values as text, objects as JSON, absent as empty', async () => {
    const result = await exportMembership(account, segment.id, { format: 'csv', property_names: ['email', 'seats', 'beta', 'address'] });
    const csv = parseCsv(await download(result.link));
    expect(csv.header).toEqual(['user_id', 'email', 'seats', 'beta', 'address']);
    expect(byUser(csv.rows)).toEqual([
      { user_id: 'prof-ann', email: ann.email, seats: '3', beta: 'true', address: JSON.stringify(ann.address) },
      { user_id: 'prof-ben', email: ben.email, seats: '0', beta: '', address: '' },
      { user_id: 'prof-cid', email: '', seats: '', beta: '', address: '' },
    ]);
  });

  it('exports a property written after an earlier export', async () => {
    const response = await api(account, 'PATCH', '/users/prof-cid/profile', { json: { plan: 'late' } });
    expect(response.status).toBe(200);
    const result = await exportMembership(account, segment.id, { format: 'json', property_names: ['plan'] });
    const lines = ndjsonObjects(await download(result.link)) as Record<string, unknown>[];
    expect(byUser(lines).map((line) => line['plan'])).toEqual(['pro', null, 'late']);
  });
});
