import { Injectable, Logger } from '@nestjs/common';
import type { Topic } from '@guidepost/contracts-events';
import { MessageBus, type OutgoingMessage, type Subscription } from './message-bus.port';
import { assertValidPayload } from './payload-validator';

/**
 * The bus of the standalone shape. `publish` hands the messages to every subscribed group, in order,
 * and resolves only when all of them succeeded; a failure rejects, and the outbox relay delivers the
 * messages again later. Handlers are idempotent, so a group that already succeeded tolerates the
 * repeat. Batch subscribers receive each run of consecutive messages of their topic in one call.
 */
@Injectable()
export class InProcessBus extends MessageBus {
  private readonly logger = new Logger(InProcessBus.name);
  private readonly subscriptions = new Map<string, Subscription<Topic>[]>();

  async publish(messages: readonly OutgoingMessage[]): Promise<void> {
    for (const run of runsOfOneTopic(messages)) {
      for (const subscription of this.subscriptions.get(run[0].topic) ?? []) {
        for (const message of run) assertValidPayload(subscription.topic, message);
        if ('handleBatch' in subscription) {
          await subscription.handleBatch(run);
        } else {
          for (const message of run) await subscription.handle(message);
        }
      }
    }
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
