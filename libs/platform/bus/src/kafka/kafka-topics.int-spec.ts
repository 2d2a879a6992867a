import { randomUUID } from 'node:crypto';
import { type Admin, Kafka, logLevel } from 'kafkajs';
import { createMissingTopics } from './kafka-topics';

const BROKERS = (process.env['GUIDEPOST_KAFKA_BROKERS'] ?? '').split(',');
const PARTITIONS = 3;

describe('topics made at start-up, on a real Kafka', () => {
  const kafka = new Kafka({ clientId: 'topics-it', brokers: BROKERS, logLevel: logLevel.NOTHING });
  // This run's own topics, on a broker that other runs and the services may share.
  const topics = Array.from({ length: 8 }, (_, index) => `it-${randomUUID().slice(0, 8)}.guidepost.test.topic-${index}.v1`);
  const admins: Admin[] = [];

  beforeAll(async () => {
    for (let service = 0; service < 5; service += 1) admins.push(kafka.admin());
    await Promise.all(admins.map((admin) => admin.connect()));
  });

  afterAll(async () => {
    await admins[0]?.deleteTopics({ topics });
    await Promise.all(admins.map((admin) => admin.disconnect()));
  });

  it('take writes on every partition as soon as each of several services starting at once has made them', async () => {
    const created = await Promise.all(
      admins.map((admin) => createMissingTopics(admin, topics, { partitions: PARTITIONS, replicationFactor: 1 })),
    );
    // One service made them; the others found them made.
    expect(created.flat().sort()).toEqual([...topics].sort());

    const producer = kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 0 } });
    await producer.connect();
    try {
      const writes = topics.map((topic) => ({
        topic,
        messages: Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, value: 'started' })),
      }));
      const written = await producer.sendBatch({ topicMessages: writes, acks: -1 });
      expect(written).toHaveLength(topics.length * PARTITIONS);
      expect(written.every((record) => record.errorCode === 0)).toBe(true);
    } finally {
      await producer.disconnect();
    }
  });
});
