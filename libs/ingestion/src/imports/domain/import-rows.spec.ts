import type { ProfileRow, RecordedEvent } from '@guidepost/contracts-events';
import { ID_MAX_LENGTH } from '@guidepost/contracts-http';
import { eventRows, groupProfileRows, type RowOutcome, userProfileRows } from './import-rows';

const STORABLE_YEARS = 'must be in the years 1900 to 2299, the range the event store holds';
const TOO_LONG_ID = 'u'.repeat(ID_MAX_LENGTH + 1);

const origin = { jobId: 'job-1', stagedAt: '2026-01-01T00:00:00.000Z' };
const events = eventRows(origin);

function itemOf<T>(outcome: RowOutcome<T>): T {
  if (!('item' in outcome)) throw new Error(`expected a row, got ${JSON.stringify(outcome)}`);
  return outcome.item;
}

const header = (line: number, ...cells: string[]) => ({ line, cells });

describe('profile import rows', () => {
  it('takes user_id or userId as the id and every other field as a property', () => {
    expect(itemOf(userProfileRows.fromJson({ user_id: 'u1', plan: 'pro', nested: { a: [1] } }, 3))).toEqual({
      id: 'u1',
      properties: { plan: 'pro', nested: { a: [1] } },
      line: 3,
    });
    expect(itemOf(userProfileRows.fromJson({ userId: 'u2', seats: 4 }, 1))).toEqual({ id: 'u2', properties: { seats: 4 }, line: 1 });
  });

  it('accepts both names when they agree, and names the second when they differ', () => {
    expect(itemOf(userProfileRows.fromJson({ user_id: 'u1', userId: 'u1' }, 1)).id).toBe('u1');
    expect(userProfileRows.fromJson({ user_id: 'u1', userId: 'u2' }, 1)).toEqual({ field: 'userId', reason: 'differs from user_id' });
  });

  it.each([
    [{ plan: 'pro' }, { field: 'user_id', reason: 'is required (or userId)' }],
    [{ user_id: 7 }, { field: 'user_id', reason: 'must be string' }],
    [{ user_id: '' }, { field: 'user_id', reason: 'must not be empty' }],
    [['u1'], { field: null, reason: 'must be a JSON object' }],
    ['u1', { field: null, reason: 'must be a JSON object' }],
    [
      { user_id: 'u1', note: 'a\u0000b' },
      { field: 'note', reason: expect.stringContaining('NUL') },
    ],
    [{ user_id: 'u\u0000' }, { field: 'user_id', reason: expect.stringContaining('NUL') }],
    [{ user_id: TOO_LONG_ID }, { field: 'user_id', reason: `must NOT have more than ${ID_MAX_LENGTH} characters` }],
    [{ userId: TOO_LONG_ID }, { field: 'userId', reason: `must NOT have more than ${ID_MAX_LENGTH} characters` }],
  ])('names what is wrong with %j', (row, problem) => {
    expect(userProfileRows.fromJson(row, 1)).toEqual(problem);
  });

  it(`takes ids of ${ID_MAX_LENGTH} characters, the most a path (GET, PATCH, DELETE) takes too`, () => {
    const longest = '😀'.repeat(ID_MAX_LENGTH);
    expect(itemOf(userProfileRows.fromJson({ user_id: longest }, 1)).id).toBe(longest);
    expect(itemOf(groupProfileRows.fromJson({ group_id: longest }, 1)).id).toBe(longest);
    expect(groupProfileRows.fromJson({ groupId: TOO_LONG_ID }, 1)).toEqual({
      field: 'groupId',
      reason: `must NOT have more than ${ID_MAX_LENGTH} characters`,
    });
  });

  it('keeps a property named __proto__ as data', () => {
    const row = itemOf(userProfileRows.fromJson(JSON.parse('{"user_id":"u1","__proto__":{"polluted":true}}'), 1));
    expect(Object.getOwnPropertyNames(row.properties)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('reads groups by group_id or groupId', () => {
    expect(itemOf(groupProfileRows.fromJson({ groupId: 'acme', industry: 'retail' }, 2))).toEqual({
      id: 'acme',
      properties: { industry: 'retail' },
      line: 2,
    });
    expect(groupProfileRows.fromJson({ user_id: 'u1' }, 2)).toEqual({ field: 'group_id', reason: 'is required (or groupId)' });
  });

  describe('from CSV', () => {
    it('types cells by the shared rule: empty is absent, ids stay text', () => {
      const row = userProfileRows.csvMapper(header(1, 'user_id', 'plan', 'seats', 'vip', 'code', 'empty'));
      expect(itemOf(row(['007', 'pro', '12', 'true', '007', ''], 2))).toEqual({
        id: '007',
        properties: { plan: 'pro', seats: 12, vip: true, code: '007' },
        line: 2,
      });
    });

    it('takes an empty id cell as no id, so the other id column can give it', () => {
      const row = userProfileRows.csvMapper(header(1, 'user_id', 'userId', 'plan'));
      expect(itemOf(row(['', 'u2', 'free'], 2)).id).toBe('u2');
      expect(row(['', '', 'free'], 3)).toEqual({ field: 'user_id', reason: 'is required (or userId)' });
    });

    it('refuses a header without the id column, or with a column named twice or not at all', () => {
      expect(() => userProfileRows.csvMapper(header(1, 'id', 'plan'))).toThrow('line 1: the header has no user_id or userId column');
      expect(() => groupProfileRows.csvMapper(header(2, 'user_id'))).toThrow('line 2: the header has no group_id or groupId column');
      expect(() => userProfileRows.csvMapper(header(1, 'user_id', 'plan', 'plan'))).toThrow(/appears twice/);
      expect(() => userProfileRows.csvMapper(header(1, 'user_id', ''))).toThrow(/no name/);
    });
  });
});

describe('event import rows', () => {
  const base = { user_id: 'u1', name: 'signup', timestamp: '2024-05-01T09:30:00+02:00' };

  it('makes a recorded event: deterministic id, UTC timestamp with milliseconds, receipt time of the upload', () => {
    expect(itemOf(events.fromJson(base, 7))).toEqual<RecordedEvent>({
      eventId: 'job-1:7',
      userId: 'u1',
      name: 'signup',
      timestamp: '2024-05-01T07:30:00.000Z',
      attributes: {},
      receivedAt: '2026-01-01T00:00:00.000Z',
    });
  });

  it('merges every unknown field into attributes, explicit attributes winning', () => {
    const event = itemOf(events.fromJson({ ...base, plan: 'pro', seats: 3, attributes: { plan: 'enterprise', _identity: { a: 1 } } }, 1));
    expect(event.attributes).toEqual({ plan: 'enterprise', seats: 3, _identity: { a: 1 } });
  });

  it('keeps context.url and the group, and allows an event of a group alone', () => {
    const event = itemOf(events.fromJson({ ...base, group_id: 'acme', context: { url: 'https://x.test/a', other: 1 } }, 1));
    expect(event).toMatchObject({ userId: 'u1', groupId: 'acme', contextUrl: 'https://x.test/a' });
    const groupOnly = itemOf(events.fromJson({ groupId: 'acme', name: 'renewed', timestamp: '2024-05-01T09:30:00Z' }, 1));
    expect(groupOnly).toMatchObject({ userId: '', groupId: 'acme' });
  });

  it.each([
    [{ name: 'x', timestamp: '2024-05-01T09:30:00Z' }, 'user_id', 'is required (or userId, group_id, groupId)'],
    [{ user_id: 'u1', timestamp: '2024-05-01T09:30:00Z' }, 'name', 'is required'],
    [{ ...base, name: '' }, 'name', 'must not be empty'],
    [{ user_id: 'u1', name: 'x' }, 'timestamp', 'is required'],
    [
      { ...base, timestamp: '2024-05-01T09:30:00' },
      'timestamp',
      expect.stringMatching(/^must be an ISO 8601 date-time .*, got "2024-05-01T09:30:00"$/),
    ],
    [{ ...base, timestamp: '2024-05-01 09:30:00Z' }, 'timestamp', expect.stringMatching(/^must be an ISO 8601 date-time/)],
    [{ ...base, timestamp: '2024-02-30T09:30:00Z' }, 'timestamp', expect.stringMatching(/^must be an ISO 8601 date-time/)],
    [{ ...base, timestamp: 1714555800000 }, 'timestamp', expect.stringMatching(/, got 1714555800000$/)],
    [{ ...base, timestamp: '0000-01-01T00:30:00+01:00' }, 'timestamp', `${STORABLE_YEARS}, got "0000-01-01T00:30:00+01:00"`],
    [{ ...base, timestamp: '1800-01-01T00:00:00Z' }, 'timestamp', `${STORABLE_YEARS}, got "1800-01-01T00:00:00Z"`],
    [{ ...base, timestamp: '2300-01-01T00:00:00Z' }, 'timestamp', `${STORABLE_YEARS}, got "2300-01-01T00:00:00Z"`],
    [{ ...base, user_id: TOO_LONG_ID }, 'user_id', `must NOT have more than ${ID_MAX_LENGTH} characters`],
    [{ ...base, group_id: TOO_LONG_ID }, 'group_id', `must NOT have more than ${ID_MAX_LENGTH} characters`],
    [{ ...base, attributes: [] }, 'attributes', 'must be object'],
    [{ ...base, context: { url: 5 } }, 'context.url', 'must be string'],
    [{ ...base, userId: 'u2' }, 'userId', 'differs from user_id'],
    [{ ...base, note: 'x\ud800' }, 'attributes.note', expect.stringContaining('lone UTF-16 surrogate')],
    [{ ...base, name: 'a\u0000' }, 'name', expect.stringContaining('NUL')],
  ])('names what is wrong with %j', (row, field, reason) => {
    expect(events.fromJson(row, 1)).toEqual({ field, reason });
  });

  it('quotes a long timestamp only in part', () => {
    const outcome = events.fromJson({ ...base, timestamp: 'x'.repeat(1000) }, 1);
    expect('reason' in outcome && outcome.reason.length).toBeLessThan(150);
  });

  describe('from CSV', () => {
    it('puts attributes.<key> columns into attributes, context.url into context, other columns into attributes, typed', () => {
      const row = events.csvMapper(
        header(1, 'user_id', 'group_id', 'name', 'timestamp', 'attributes.plan', 'attributes.seats', 'context.url', 'tier'),
      );
      expect(itemOf(row(['u1', '', 'signup', '2024-05-01T09:30:00Z', 'pro', '3', 'https://x.test', 'true'], 2))).toEqual<RecordedEvent>({
        eventId: 'job-1:2',
        userId: 'u1',
        name: 'signup',
        timestamp: '2024-05-01T09:30:00.000Z',
        attributes: { plan: 'pro', seats: 3, tier: true },
        contextUrl: 'https://x.test',
        receivedAt: origin.stagedAt,
      });
      expect(itemOf(row(['', 'acme', 'renewed', '2024-05-01T09:30:00Z', '', '', '', ''], 3))).toEqual<RecordedEvent>({
        eventId: 'job-1:3',
        userId: '',
        groupId: 'acme',
        name: 'renewed',
        timestamp: '2024-05-01T09:30:00.000Z',
        attributes: {},
        receivedAt: origin.stagedAt,
      });
    });

    it("reads the export's own CSV format back (names and timestamps stay text)", () => {
      const row = events.csvMapper(header(1, 'name', 'timestamp', 'user_id', 'attributes.step'));
      expect(itemOf(row(['true', '2024-05-01T09:30:00.000Z', '42', '2'], 2))).toMatchObject({
        name: 'true',
        userId: '42',
        attributes: { step: 2 },
      });
    });

    it.each([
      [['name', 'timestamp'], 'line 1: the header has none of the columns user_id, userId, group_id, groupId'],
      [['user_id', 'timestamp'], 'line 1: the header has no name column'],
      [['user_id', 'name'], 'line 1: the header has no timestamp column'],
      [['user_id', 'name', 'timestamp', 'attributes'], /write one attributes.<key> column per key/],
    ])('refuses the header %j', (columns, message) => {
      expect(() => events.csvMapper(header(1, ...columns))).toThrow(message);
    });
  });
});

describe('a row is the same in either format', () => {
  it('maps the NDJSON row and the CSV row of one profile alike', () => {
    const json: ProfileRow = itemOf(userProfileRows.fromJson({ user_id: 'u1', plan: 'pro', seats: 12 }, 2));
    const csv: ProfileRow = itemOf(userProfileRows.csvMapper(header(1, 'user_id', 'plan', 'seats'))(['u1', 'pro', '12'], 2));
    expect(csv).toEqual(json);
  });
});
