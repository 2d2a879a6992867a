import { KafkaNames, topicConfig } from './kafka-topics';

describe('Kafka names', () => {
  it('uses the contract names as they are when the installation has no namespace', () => {
    const names = new KafkaNames(undefined);
    expect(names.topic('guidepost.mail.mail-requested.v1')).toBe('guidepost.mail.mail-requested.v1');
    expect(names.group('mail.sender')).toBe('mail.sender');
    expect(names.deadLetterTopic('guidepost.mail.mail-requested.v1')).toBe('guidepost.mail.mail-requested.v1.dead-letter');
  });

  it('puts the namespace before every topic and group, so that installations sharing a cluster never meet', () => {
    const names = new KafkaNames('staging');
    expect(names.topicsWithDeadLetters(['guidepost.a.v1', 'guidepost.b.v1'])).toEqual([
      'staging.guidepost.a.v1',
      'staging.guidepost.a.v1.dead-letter',
      'staging.guidepost.b.v1',
      'staging.guidepost.b.v1.dead-letter',
    ]);
    expect(names.group('mail.sender')).toBe('staging.mail.sender');
  });
});

describe('topics the bus creates', () => {
  const setting = (replicationFactor: number, name: string) =>
    topicConfig('guidepost.a.v1', { partitions: 6, replicationFactor }).configEntries?.find((entry) => entry.name === name)?.value;

  it('need all but one replica in sync for an acknowledged write, so that losing the leader loses nothing', () => {
    expect(setting(3, 'min.insync.replicas')).toBe('2');
    expect(setting(5, 'min.insync.replicas')).toBe('4');
  });

  it('take writes on one broker when there is only one (local runs and tests)', () => {
    expect(setting(1, 'min.insync.replicas')).toBe('1');
  });

  it('take records as large as an import batch', () => {
    expect(setting(1, 'max.message.bytes')).toBe(String(16 * 1024 * 1024));
  });
});
