import { KafkaNames } from './kafka-topics';

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
