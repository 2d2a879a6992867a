import { Logger } from '@nestjs/common';
import { type ShutdownPlan, shutDown } from './graceful-shutdown';
import { startupFailureLine } from './startup-failure';

/**
 * Runs a host's start-up. A failure prints one line to stderr, what is wrong and how to fix it (see
 * `startupFailureLine`; the stack too with GUIDEPOST_LOG_LEVEL=debug or trace), and the process exits
 * 1 instead of lingering half-started. `start` undoes what it started before it rejects.
 */
export function runHost(name: string, start: () => Promise<void>): void {
  start().catch((error: unknown) => {
    process.stderr.write(`${startupFailureLine(name, error)}\n`);
    if (/^(debug|trace)$/.test(process.env['GUIDEPOST_LOG_LEVEL'] ?? '') && error instanceof Error && error.stack) {
      process.stderr.write(`${error.stack}\n`);
    }
    process.exit(1);
  });
}

/**
 * On SIGTERM or SIGINT, stops the host in order (`shutDown`: readiness 503, no new connections, the
 * requests in flight answered, then workers, consumers, relays, producer, pools, then what the host
 * owns) and exits 0; exits 1 when the stop fails or has not finished within the grace period. A
 * repeated signal (a second Ctrl-C, or the one npm forwards) changes nothing.
 */
export function stopGracefullyOnSignals(plan: ShutdownPlan): void {
  const logger = new Logger('Shutdown');
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn(`${signal} received while stopping; the stop goes on (at most ${plan.graceMs} ms in all)`);
      return;
    }
    stopping = true;
    const deadline = setTimeout(() => {
      logger.error(`the stop did not finish within the grace period of ${plan.graceMs} ms; exiting now`);
      process.exit(1);
    }, plan.graceMs);
    shutDown(plan, signal).then(
      () => {
        clearTimeout(deadline);
        process.exit(0);
      },
      (error: unknown) => {
        logger.error(`the stop failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
