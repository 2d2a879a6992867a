import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import type { BusMessage, Topic } from '@guidepost/contracts-events';
import { PermanentFailure, TransientFailure } from '@guidepost/platform-failures';
import { deliverAsBatch, deliverOneByOne, type DeliverySteps, type ReceivedRecord } from './delivery/partition-delivery';
import { attemptWithBackoff, HANDLER_RETRY, reasonOf } from './delivery/retry';
import { MessageBus, type OutgoingMessage, type Subscription } from './message-bus.port';
import { assertValidPayload } from './payload-validator';

type Received = ReceivedRecord<BusMessage>;

/**
 * The bus of the standalone shape. `publish` hands the messages to every subscribed group, in order,
 * under the same rules as the Kafka consumers: a transient failure (a store is down) rejects at once,
 * and the outbox relay delivers the messages again once its back-off has passed, for as long as the
 * outage lasts; a message a group gives up on (a permanent failure, or an unrecognised one after the
 * handler's attempts) is told to the subscription's `onGiveUp`, the other groups still receive it,
 * and `publish` then rejects with a permanent failure, so the relay keeps the message dead-lettered
 * in its outbox with the reason. Handlers are idempotent, so a group that already succeeded tolerates
 * a repeat. Batch subscribers receive each run of consecutive messages of their topic in one call.
 */
@Injectable()
export class InProcessBus extends MessageBus implements BeforeApplicationShutdown {
  private readonly logger = new Logger(InProcessBus.name);
  private readonly subscriptions = new Map<string, Subscription<Topic>[]>();
  private readonly stopping = new AbortController();

  async publish(messages: readonly OutgoingMessage[]): Promise<void> {
    const givenUp: string[] = [];
    for (const run of runsOfOneTopic(messages)) {
      for (const subscription of this.subscriptions.get(run[0].topic) ?? []) {
        for (const message of run) assertValidPayload(subscription.topic, message);
        await this.deliver(subscription, run, givenUp);
      }
    }
    if (givenUp.length > 0) throw new PermanentFailure(givenUp.join('; '));
  }

  /**
   * Runs the handler of `group` alone on the message (the replay of a dead letter), under the same
   * rules as `publish`: rejects with a transient failure while a store is down, with a permanent one
   * when the group gives the message up again.
   */
  async redeliver(message: OutgoingMessage, group: string): Promise<void> {
    const subscription = (this.subscriptions.get(message.topic) ?? []).find((candidate) => candidate.group === group);
    if (!subscription) throw new PermanentFailure(`no consumer group ${group} subscribes to ${message.topic}`);
    assertValidPayload(subscription.topic, message);
    const givenUp: string[] = [];
    await this.deliver(subscription, [message], givenUp);
    if (givenUp.length > 0) throw new PermanentFailure(givenUp.join('; '));
  }

  subscribe<T extends Topic>(subscription: Subscription<T>): void {
    const existing = this.subscriptions.get(subscription.topic.name) ?? [];
    if (existing.some((s) => s.group === subscription.group)) {
      throw new Error(`group ${subscription.group} already subscribes to ${subscription.topic.name}`);
    }
    existing.push(subscription as unknown as Subscription<Topic>);
    this.subscriptions.set(subscription.topic.name, existing);
    this.logger.debug(`${subscription.group} subscribed to ${subscription.topic.name}`);
  }

  /** Hands a run of one topic's messages to one subscription; what it gives up on is added to `givenUp`. */
  private async deliver(subscription: Subscription<Topic>, run: readonly OutgoingMessage[], givenUp: string[]): Promise<void> {
    const records = run.map((message, index): Received => ({ offset: String(index), decoded: { message } }));
    const steps = this.stepsFor(subscription, (record, reason) =>
      givenUp.push(`${subscription.group} gave up on message ${record.id}: ${reason}`),
    );
    if ('handleBatch' in subscription) await deliverAsBatch(records, steps);
    else await deliverOneByOne(records, steps);
    // Abandoned, not handled: the messages must stay in the outbox for the next start.
    if (this.stopping.signal.aborted) throw new TransientFailure('the process is stopping; the messages are delivered after the restart');
  }

  /** A handler failing during the shutdown is abandoned: its message stays in the outbox for the next start. */
  beforeApplicationShutdown(): void {
    this.stopping.abort();
  }

  private stepsFor(
    subscription: Subscription<Topic>,
    recordGiveUp: (message: BusMessage, reason: string) => void,
  ): DeliverySteps<BusMessage, Received> {
    return {
      attempt: (messages) =>
        attemptWithBackoff(() => runHandler(subscription, messages), HANDLER_RETRY, {
          stopping: this.stopping.signal,
          rethrowTransient: true,
          onFailure: (error, { attempt, retryInMs }) => {
            if (retryInMs === undefined) return;
            this.logger.warn(
              `${subscription.group} failed on message ${messages[0].id} (attempt ${attempt}), retrying in ${retryInMs} ms: ${reasonOf(error)}`,
            );
          },
        }),
      deadLetter: async (record, reason) => {
        if (!('message' in record.decoded)) return;
        const { message } = record.decoded;
        await subscription.onGiveUp?.(message, reason);
        recordGiveUp(message, reason);
        this.logger.error(`${subscription.group} gave up on message ${message.id} of ${message.topic}: ${reason}`);
      },
      // Nothing to commit in process: the outbox relay marks the messages published once `publish` resolved.
      commitThrough: () => Promise.resolve(true),
      isRunning: () => !this.stopping.signal.aborted,
    };
  }
}

function runHandler(subscription: Subscription<Topic>, messages: readonly BusMessage[]): Promise<void> {
  return 'handleBatch' in subscription ? subscription.handleBatch(messages) : subscription.handle(messages[0]);
}

/** Splits messages into maximal runs of consecutive messages of one topic, keeping their order. */
function runsOfOneTopic(messages: readonly OutgoingMessage[]): OutgoingMessage[][] {
  const runs: OutgoingMessage[][] = [];
  for (const message of messages) {
    const last = runs.at(-1);
    if (last && last[0].topic === message.topic) last.push(message);
    else runs.push([message]);
  }
  return runs;
}
