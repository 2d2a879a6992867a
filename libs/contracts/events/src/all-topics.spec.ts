import * as contracts from './index';
import { ALL_TOPICS } from './all-topics';
import type { Topic } from './topic';

function isTopic(value: unknown): value is Topic {
  const candidate = value as Partial<Topic> | undefined;
  return typeof candidate?.name === 'string' && typeof candidate.keyedBy === 'string' && typeof candidate.schema === 'object';
}

describe('ALL_TOPICS', () => {
  it('lists every topic the contracts export, so that none is missing on Kafka', () => {
    const exported = (Object.values(contracts) as unknown[]).filter(isTopic);
    expect(ALL_TOPICS.map((topic) => topic.name).sort()).toEqual(exported.map((topic) => topic.name).sort());
  });

  it('names every topic and its dead-letter topic within what Kafka accepts', () => {
    for (const { name } of ALL_TOPICS) {
      expect(contracts.deadLetterTopicOf(name)).toMatch(/^[a-zA-Z0-9._-]{1,249}$/);
    }
  });
});
