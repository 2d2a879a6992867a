import type { KafkaMessage } from 'kafkajs';
import {
  consumerDeadLetterOf,
  deadLetterRecord,
  fromRecord,
  lagBefore,
  offsetAfter,
  passOverReason,
  produceRequestsOf,
  redeliveryRecord,
  toRecord,
} from './kafka-records';

const message = {
  id: 'm-1',
  topic: 'guidepost.test.thing-happened.v1',
  key: 'account-7',
  occurredAt: '2024-05-01T09:30:00.000Z',
  payload: { n: 1 },
};

/** A record as kafkajs hands it to a consumer (keys, values and headers as buffers). */
function received(fields: { key?: Buffer | null; value?: Buffer | null; headers?: Record<string, Buffer> } = {}): KafkaMessage {
  const record = toRecord(message);
  const headers = Object.fromEntries(Object.entries(record.headers ?? {}).map(([name, value]) => [name, Buffer.from(String(value))]));
  return {
    key: Buffer.from(record.key),
    value: Buffer.from(record.value),
    headers,
    offset: '41',
    timestamp: '0',
    attributes: 0,
    ...fields,
  };
}

describe('Kafka records', () => {
  it('carries the whole envelope: key as key, payload as JSON value, id and occurred-at as headers', () => {
    expect(toRecord(message)).toEqual({
      key: 'account-7',
      value: '{"n":1}',
      headers: { 'message-id': 'm-1', 'occurred-at': '2024-05-01T09:30:00.000Z' },
    });
    expect(fromRecord(message.topic, received())).toEqual({ message });
  });

  it('names what makes a received record unusable', () => {
    expect(fromRecord(message.topic, received({ value: Buffer.from('{"n":') }))).toEqual({
      problem: expect.stringMatching(/^the value is not JSON: /) as string,
    });
    expect(fromRecord(message.topic, received({ headers: {} }))).toEqual({ problem: 'the record has no message-id header' });
    expect(fromRecord(message.topic, received({ key: null }))).toEqual({ problem: 'the record has no key' });
    expect(fromRecord(message.topic, received({ value: null }))).toEqual({ problem: 'the record has no value' });
  });

  it('marks a redelivery for one group, which the consumers of every other group pass over', () => {
    const record = redeliveryRecord(message, 'test.second');
    expect(record).toEqual({ ...toRecord(message), headers: { ...toRecord(message).headers, 'redelivered-to-group': 'test.second' } });
    const redelivered = received({
      headers: Object.fromEntries(Object.entries(record.headers ?? {}).map(([name, value]) => [name, Buffer.from(String(value))])),
    });
    expect(passOverReason(redelivered, 'test.second')).toBeUndefined();
    expect(passOverReason(redelivered, 'test.first')).toBe('redelivered to consumer group test.second only');
    expect(passOverReason(received(), 'test.first')).toBeUndefined();
    expect(fromRecord(message.topic, redelivered)).toEqual({ message });
  });

  it('keeps everything a given-up record carried for the operator, even a value that is not JSON', () => {
    const failedAt = new Date('2024-05-02T10:00:00.000Z');
    const where = { topic: message.topic, group: 'test.group', partition: 2 };
    expect(consumerDeadLetterOf(received(), where, { reason: 'boom', attempts: 5, failedAt })).toEqual({
      ...where,
      messageId: 'm-1',
      key: 'account-7',
      payload: { n: 1 },
      rawValue: undefined,
      headers: { 'message-id': 'm-1', 'occurred-at': '2024-05-01T09:30:00.000Z' },
      occurredAt: '2024-05-01T09:30:00.000Z',
      reason: 'boom',
      attempts: 5,
      offset: '41',
      failedAt,
    });
    const broken = consumerDeadLetterOf(received({ key: null, value: Buffer.from('{"n":'), headers: {} }), where, {
      reason: 'not JSON',
      attempts: 0,
      failedAt,
    });
    expect(broken).toMatchObject({
      messageId: undefined,
      key: undefined,
      payload: undefined,
      rawValue: '{"n":',
      headers: {},
      occurredAt: undefined,
    });
  });

  it('dead-letters a record as it arrived, with where it came from and why it failed', () => {
    const original = received({ value: Buffer.from('not json') });
    const failedAt = new Date('2024-05-02T10:00:00.000Z');
    const context = { topic: message.topic, partition: 3, offset: '41', group: 'test.group', reason: 'boom', attempts: 5, failedAt };
    const dead = deadLetterRecord(original, context);
    expect(dead.key).toBe(original.key);
    expect(dead.value).toBe(original.value);
    expect(dead.headers).toEqual({
      ...original.headers,
      'original-topic': message.topic,
      'original-partition': '3',
      'original-offset': '41',
      'consumer-group': 'test.group',
      reason: 'boom',
      attempts: '5',
      'failed-at': '2024-05-02T10:00:00.000Z',
    });
  });

  it('splits a publish into requests under the size cap, in order, grouped by topic', () => {
    const of = (id: string, topic: string, size: number) => ({ ...message, id, topic, key: 'k', payload: 'x'.repeat(size - 3) });
    // Each message is 1 (key) + size (quoted JSON string) bytes.
    const requests = produceRequestsOf(
      [of('a', 't1', 40), of('b', 't2', 40), of('c', 't1', 40), of('d', 't1', 200), of('e', 't2', 10)],
      100,
    );
    const shape = requests.map((request) => request.map(({ topic, messages }) => `${topic}:${messages.length}`));
    expect(shape).toEqual([['t1:1', 't2:1'], ['t1:1'], ['t1:1'], ['t2:1']]);
    expect(requests.flat().flatMap((entry) => entry.messages.map((m) => m.headers?.['message-id']))).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('keeps messages of one topic together in one request when they fit', () => {
    const requests = produceRequestsOf(
      ['a', 'b', 'c'].map((id) => ({ ...message, id })),
      1024,
    );
    expect(requests).toHaveLength(1);
    expect(requests[0]).toHaveLength(1);
    expect(requests[0][0].messages.map((m) => m.headers?.['message-id'])).toEqual(['a', 'b', 'c']);
  });

  it('counts offsets as 64-bit numbers', () => {
    expect(offsetAfter('9007199254740993')).toBe('9007199254740994');
    expect(lagBefore('120', '100')).toBe(20);
    expect(lagBefore('100', '100')).toBe(0);
  });
});
