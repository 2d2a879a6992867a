import { Logger } from '@nestjs/common';
import { ConfigurationError } from '@guidepost/platform-config';

/**
 * Runs a host's start-up; a configuration error prints its list of problems, anything else its
 * stack, and the process exits non-zero instead of lingering half-started.
 */
export function runHost(name: string, start: () => Promise<void>): void {
  start().catch((error: unknown) => {
    if (error instanceof ConfigurationError) process.stderr.write(`${error.message}\n`);
    else new Logger(name).error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  });
}

/**
 * On SIGTERM or SIGINT, runs `stop` once (close the application so consumers and relays finish,
 * then whatever the host owns), then exits.
 */
export function stopGracefullyOnSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (): void => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        new Logger('Shutdown').error(String(error));
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
