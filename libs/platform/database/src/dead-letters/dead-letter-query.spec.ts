import { DomainError } from '@guidepost/platform-errors';
import { decodeCursor, encodeCursor, isDeadLetterId, listQueryOf, replayFilterOf } from './dead-letter-query';

function detailOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('invalid_request');
    return (error as DomainError).detail;
  }
  throw new Error('expected a DomainError');
}

describe('dead letter list queries', () => {
  it('defaults to the first 50, and reads the filters as given', () => {
    expect(listQueryOf({})).toEqual({ limit: 50, after: undefined, topic: undefined, group: undefined, status: undefined });
    expect(listQueryOf({ limit: '500', topic: 'guidepost.mail.mail-requested.v1', group: 'mail.sender', status: 'waiting' })).toEqual({
      limit: 500,
      after: undefined,
      topic: 'guidepost.mail.mail-requested.v1',
      group: 'mail.sender',
      status: 'waiting',
    });
  });

  it('continues after the row a cursor names, and refuses a cursor it never gave out', () => {
    const cursor = encodeCursor({ failedAt: '2026-11-23T21:42:24.123456Z', id: '17' });
    expect(listQueryOf({ cursor }).after).toEqual({ failedAt: '2026-11-23T21:42:24.123456Z', id: '17' });
    expect(decodeCursor(cursor)).toEqual({ failedAt: '2026-11-23T21:42:24.123456Z', id: '17' });
    expect(detailOf(() => listQueryOf({ cursor: 'bm90IGEgY3Vyc29y' }))).toBe('cursor: not a cursor this list gave out');
    expect(decodeCursor(Buffer.from('2026-11-23T21:42:24.123456Z/0').toString('base64url'))).toBeUndefined();
  });

  it.each([
    [{ limit: '0' }, 'limit: must be an integer from 1 to 500'],
    [{ limit: '501' }, 'limit: must be an integer from 1 to 500'],
    [{ limit: '2.5' }, 'limit: must be an integer from 1 to 500'],
    [{ status: 'lost' }, 'status: must be one of waiting, replayed'],
    [{ topic: ['a', 'b'] }, 'topic: give it once'],
    [{ group: '' }, 'group: must not be empty'],
    [{ page: '2' }, 'page: unknown parameter (use limit, cursor, topic, group, status)'],
  ])('names the parameter at fault in %j', (query, detail) => {
    expect(detailOf(() => listQueryOf(query))).toBe(detail);
  });

  it('knows a dead letter id when it sees one', () => {
    expect(isDeadLetterId('1')).toBe(true);
    expect(isDeadLetterId('123456789012345678')).toBe(true);
    expect(['0', '01', 'x1', '', '1234567890123456789', '1 '].filter(isDeadLetterId)).toEqual([]);
  });
});

describe('bulk replay filters', () => {
  it('takes an empty object (what no body reads as), a topic, a group, or both', () => {
    expect(replayFilterOf({})).toEqual({ topic: undefined, group: undefined });
    expect(replayFilterOf({ topic: 't', group: 'g' })).toEqual({ topic: 't', group: 'g' });
  });

  it('names what is wrong with a body', () => {
    expect(detailOf(() => replayFilterOf([]))).toBe('body: must be a JSON object such as {"topic": "...", "group": "..."}');
    expect(detailOf(() => replayFilterOf({ topic: 3 }))).toBe('topic: must be a non-empty string');
    expect(detailOf(() => replayFilterOf({ id: '1' }))).toBe('id: unknown field (use topic, group)');
  });
});
