import type { AttemptOutcome } from './retry';

/**
 * One received record of a partition: its decoded message, why it can never be handled, or why it is
 * not this consumer's to handle (a message redelivered to another consumer group), so it is passed over.
 */
export interface ReceivedRecord<M> {
  readonly offset: string;
  readonly decoded: { readonly message: M } | { readonly problem: string } | { readonly passOver: string };
}

/** What delivering a partition's records needs from the consumer; kept abstract so the rules below stand alone. */
export interface DeliverySteps<M, R extends ReceivedRecord<M>> {
  /** Runs the handler on these messages under the retry policy. */
  attempt(messages: readonly M[]): Promise<AttemptOutcome>;
  deadLetter(record: R, reason: string, attempts: number): Promise<void>;
  /** Records everything up to and including `offset` as done; false when the commit failed (the partition may be gone). */
  commitThrough(offset: string): Promise<boolean>;
  /** False once the consumer is stopping or the partition was taken away: start nothing new. */
  isRunning(): boolean;
}

/**
 * Single-message subscriptions: each record in partition order; a message that fails every attempt,
 * or can never be handled, is dead-lettered and committed so that the partition moves on; a record
 * passed over is committed unhandled. Stops at the first record it cannot settle (stopping, or a failed
 * commit); nothing after it is committed.
 */
export async function deliverOneByOne<M, R extends ReceivedRecord<M>>(records: readonly R[], steps: DeliverySteps<M, R>): Promise<void> {
  for (const record of records) {
    if (!steps.isRunning() || !(await deliverOne(record, steps))) return;
  }
}

/**
 * Batch subscriptions: the valid messages in one handler call, committed together once it resolved.
 * When the batch keeps failing, one bad message must not hold the others back: the records are then
 * delivered one by one with the single-message rule, so only the poison is dead-lettered.
 */
export async function deliverAsBatch<M, R extends ReceivedRecord<M>>(records: readonly R[], steps: DeliverySteps<M, R>): Promise<void> {
  const last = records.at(-1);
  if (!last || !steps.isRunning()) return;
  const messages = records.flatMap((record) => ('message' in record.decoded ? [record.decoded.message] : []));
  const outcome: AttemptOutcome = messages.length > 0 ? await steps.attempt(messages) : { kind: 'done' };
  switch (outcome.kind) {
    case 'abandoned':
      return;
    case 'failed':
      return deliverOneByOne(records, steps);
    case 'done':
      for (const record of records) {
        if ('problem' in record.decoded) await steps.deadLetter(record, record.decoded.problem, 0);
      }
      await steps.commitThrough(last.offset);
  }
}

/** Settles one record (handled, or dead-lettered); true when it is committed and the next may follow. */
async function deliverOne<M, R extends ReceivedRecord<M>>(record: R, steps: DeliverySteps<M, R>): Promise<boolean> {
  if ('passOver' in record.decoded) return steps.commitThrough(record.offset);
  if ('problem' in record.decoded) {
    await steps.deadLetter(record, record.decoded.problem, 0);
    return steps.commitThrough(record.offset);
  }
  const outcome = await steps.attempt([record.decoded.message]);
  switch (outcome.kind) {
    case 'abandoned':
      return false;
    case 'failed':
      await steps.deadLetter(record, outcome.reason, outcome.attempts);
      return steps.commitThrough(record.offset);
    case 'done':
      return steps.commitThrough(record.offset);
  }
}
