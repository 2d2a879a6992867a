import { errorChain, PermanentFailure, reasonOf, TransientFailure } from '@guidepost/platform-failures';

/**
 * Broker answers that sending the same messages again can never change: the outbox relay dead-letters
 * such a message at once instead of retrying it for hours.
 */
const NEVER_SUCCEEDS = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_TOPIC_EXCEPTION', 'INVALID_RECORD']);

/** A publish that can never succeed: the outbox relay dead-letters it at once. */
export class PermanentPublishError extends PermanentFailure {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PermanentPublishError';
  }
}

/**
 * A publish that failed for a reason that passes (the broker is down or moving leaders): the outbox
 * relay keeps retrying it however long the outage lasts, never dead-letters it.
 */
export class TransientPublishError extends TransientFailure {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TransientPublishError';
  }
}

/** The error to throw for a failed produce request: permanent when Kafka said it can never succeed, else transient. */
export function publishFailure(error: unknown, topics: readonly string[]): Error {
  const permanent = errorChain(error).find((link) => {
    const type = (link as { type?: unknown }).type;
    return typeof type === 'string' && NEVER_SUCCEEDS.has(type);
  });
  if (!permanent) return new TransientPublishError(`publishing to ${topics.join(', ')} failed: ${reasonOf(error)}`, { cause: error });
  return new PermanentPublishError(`publishing to ${topics.join(', ')} can never succeed: ${reasonOf(permanent)}`, { cause: error });
}
