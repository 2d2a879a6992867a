import { Logger } from '@nestjs/common';
import type { logCreator } from 'kafkajs';

/** Fields kafkajs puts in every entry that the service's log line has already. */
const REPEATED = new Set(['timestamp', 'logger']);

/**
 * kafkajs' own lines, at debug level. kafkajs logs every failed broker response as an error, also the
 * ones it retries and those of normal operation (a rebalance, a partition leader moving, a topic just
 * created), so at their own levels they would bury real problems. What an operator must see is logged
 * by the bus itself: a publish that finally fails (by the outbox relay), a consumer that crashes, a
 * failed commit, a dead letter. `GUIDEPOST_LOG_LEVEL=debug` shows kafkajs' warnings and errors too.
 */
export function kafkaLogCreator(): logCreator {
  const logger = new Logger('kafkajs');
  return () =>
    ({ namespace, log }) => {
      const { message, ...details } = log;
      logger.debug(`${namespace}: ${message} ${JSON.stringify(details, (key, value: unknown) => (REPEATED.has(key) ? undefined : value))}`);
    };
}
