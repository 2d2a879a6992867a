import { deliverAsBatch, deliverOneByOne, type DeliverySteps, type ReceivedRecord } from './partition-delivery';
import type { AttemptOutcome } from './retry';

type Rec = ReceivedRecord<string>;

const valid = (offset: number, message: string): Rec => ({ offset: String(offset), decoded: { message } });
const invalid = (offset: number, problem: string): Rec => ({ offset: String(offset), decoded: { problem } });
const elsewhere = (offset: number): Rec => ({ offset: String(offset), decoded: { passOver: 'redelivered to another group' } });

/**
 * A partition's consumer in miniature: the handler fails on messages listed as poison (every attempt),
 * and everything that happens is written to a journal in order.
 */
function partition(options: { poison?: string[]; stopsDuring?: string; failCommitAt?: string } = {}) {
  const journal: string[] = [];
  const handled: string[][] = [];
  let running = true;
  const steps: DeliverySteps<string, Rec> = {
    attempt: (messages): Promise<AttemptOutcome> => {
      handled.push([...messages]);
      if (options.stopsDuring && messages.includes(options.stopsDuring)) {
        running = false;
        return Promise.resolve({ kind: 'abandoned' });
      }
      const bad = messages.find((m) => options.poison?.includes(m));
      return Promise.resolve(
        bad ? { kind: 'failed', reason: `${bad} is poison`, attempts: 5, failureClass: 'unrecognised' } : { kind: 'done' },
      );
    },
    deadLetter: (record, reason, attempts) => {
      journal.push(`dead-letter ${record.offset} (${attempts}): ${reason}`);
      return Promise.resolve();
    },
    commitThrough: (offset) => {
      if (offset === options.failCommitAt) {
        journal.push(`commit ${offset} failed`);
        return Promise.resolve(false);
      }
      journal.push(`commit ${offset}`);
      return Promise.resolve(true);
    },
    isRunning: () => running,
  };
  return { steps, journal, handled };
}

describe('delivering a partition one message at a time', () => {
  it('dead-letters a message that keeps failing and moves on to the next', async () => {
    const { steps, journal, handled } = partition({ poison: ['b'] });
    await deliverOneByOne([valid(1, 'a'), valid(2, 'b'), valid(3, 'c')], steps);
    expect(handled).toEqual([['a'], ['b'], ['c']]);
    expect(journal).toEqual(['commit 1', 'dead-letter 2 (5): b is poison', 'commit 2', 'commit 3']);
  });

  it('dead-letters a record that can never be handled without running the handler', async () => {
    const { steps, journal, handled } = partition();
    await deliverOneByOne([invalid(1, 'the value is not JSON'), valid(2, 'b')], steps);
    expect(handled).toEqual([['b']]);
    expect(journal).toEqual(['dead-letter 1 (0): the value is not JSON', 'commit 1', 'commit 2']);
  });

  it('commits nothing for a message abandoned because the consumer stops, and starts nothing after it', async () => {
    const { steps, journal, handled } = partition({ stopsDuring: 'b' });
    await deliverOneByOne([valid(1, 'a'), valid(2, 'b'), valid(3, 'c')], steps);
    expect(handled).toEqual([['a'], ['b']]);
    expect(journal).toEqual(['commit 1']);
  });

  it('commits past a record redelivered to another group without handling it', async () => {
    const { steps, journal, handled } = partition();
    await deliverOneByOne([valid(1, 'a'), elsewhere(2), valid(3, 'c')], steps);
    expect(handled).toEqual([['a'], ['c']]);
    expect(journal).toEqual(['commit 1', 'commit 2', 'commit 3']);
  });

  it('stops at a failed commit: the partition may have moved to another member', async () => {
    const { steps, journal, handled } = partition({ failCommitAt: '2' });
    await deliverOneByOne([valid(1, 'a'), valid(2, 'b'), valid(3, 'c')], steps);
    expect(handled).toEqual([['a'], ['b']]);
    expect(journal).toEqual(['commit 1', 'commit 2 failed']);
  });
});

describe('delivering a partition in batches', () => {
  it('hands the valid messages over in one call and commits once, after it resolved', async () => {
    const { steps, journal, handled } = partition();
    await deliverAsBatch([valid(1, 'a'), invalid(2, 'no key'), valid(3, 'c')], steps);
    expect(handled).toEqual([['a', 'c']]);
    expect(journal).toEqual(['dead-letter 2 (0): no key', 'commit 3']);
  });

  it('isolates the poison of a failing batch: the others are handled, only it is dead-lettered', async () => {
    const { steps, journal, handled } = partition({ poison: ['b'] });
    await deliverAsBatch([valid(1, 'a'), valid(2, 'b'), invalid(3, 'no key'), valid(4, 'd')], steps);
    expect(handled).toEqual([['a', 'b', 'd'], ['a'], ['b'], ['d']]);
    expect(journal).toEqual([
      'commit 1',
      'dead-letter 2 (5): b is poison',
      'commit 2',
      'dead-letter 3 (0): no key',
      'commit 3',
      'commit 4',
    ]);
  });

  it('commits nothing of a batch abandoned because the consumer stops', async () => {
    const { steps, journal } = partition({ stopsDuring: 'a' });
    await deliverAsBatch([valid(1, 'a'), invalid(2, 'no key')], steps);
    expect(journal).toEqual([]);
  });

  it('starts no batch once the consumer is stopping', async () => {
    const { steps, journal, handled } = partition();
    await deliverAsBatch([valid(1, 'a')], { ...steps, isRunning: () => false });
    expect(handled).toEqual([]);
    expect(journal).toEqual([]);
  });

  it('leaves records redelivered to another group out of the batch, and commits past them', async () => {
    const { steps, journal, handled } = partition();
    await deliverAsBatch([elsewhere(1), valid(2, 'b'), elsewhere(3)], steps);
    expect(handled).toEqual([['b']]);
    expect(journal).toEqual(['commit 3']);
    const onlyElsewhere = partition();
    await deliverAsBatch([elsewhere(4), elsewhere(5)], onlyElsewhere.steps);
    expect(onlyElsewhere.handled).toEqual([]);
    expect(onlyElsewhere.journal).toEqual(['commit 5']);
  });

  it('dead-letters a batch of records none of which can be handled, and commits past them', async () => {
    const { steps, journal, handled } = partition();
    await deliverAsBatch([invalid(1, 'no key'), invalid(2, 'no value')], steps);
    expect(handled).toEqual([]);
    expect(journal).toEqual(['dead-letter 1 (0): no key', 'dead-letter 2 (0): no value', 'commit 2']);
  });
});
