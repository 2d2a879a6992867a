import { reasonOf } from './retry';

/**
 * Broker answers that sending the same messages again can never change: the outbox relay dead-letters
 * such a message at once instead of retrying it for hours.
 */
const NEVER_SUCCEEDS = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_TOPIC_EXCEPTION', 'INVALID_RECORD']);

/** A publish that can never succeed; `permanent` is what the outbox relay looks for. */
export class PermanentPublishError extends Error {
  readonly permanent = true;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PermanentPublishError';
  }
}

/**
 * A publish that failed for a reason that passes (the broker is down or moving leaders); `transient`
 * tells the outbox relay to keep retrying it however long the outage lasts, never to dead-letter it.
 */
export class TransientPublishError extends Error {
  readonly transient = true;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TransientPublishError';
  }
}

/** The error to throw for a failed produce request: permanent when Kafka said it can never succeed, else transient. */
export function publishFailure(error: unknown, topics: readonly string[]): Error {
  const permanent = [...errorChain(error)].find((link) => {
    const type = (link as { type?: unknown }).type;
    return typeof type === 'string' && NEVER_SUCCEEDS.has(type);
  });
  if (!permanent) return new TransientPublishError(`publishing to ${topics.join(', ')} failed: ${reasonOf(error)}`, { cause: error });
  return new PermanentPublishError(`publishing to ${topics.join(', ')} can never succeed: ${reasonOf(permanent)}`, { cause: error });
}

/** The error, its causes, and the errors it aggregates (kafkajs wraps protocol errors in retry and aggregate errors). */
function errorChain(error: unknown): Set<unknown> {
  const chain = new Set<unknown>();
  const pending = [error];
  while (pending.length > 0) {
    const link = pending.pop();
    if (link === null || typeof link !== 'object' || chain.has(link)) continue;
    chain.add(link);
    const { cause, errors } = link as { cause?: unknown; errors?: unknown };
    pending.push(cause, ...(Array.isArray(errors) ? (errors as unknown[]) : []));
  }
  return chain;
}
