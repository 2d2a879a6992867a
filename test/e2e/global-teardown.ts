// A relative path, not the alias: jest loads global teardown without its module mapping.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { printLoggedFailures } from '../../tools/suite/src/logged-failures';
import { ADMIN_TOKEN_VARIABLE, BASE_URL_VARIABLE } from './support/client';
import { suiteServer } from './global-setup';

/**
 * Stops the server that global-setup started (never one that was handed to the suite), first printing
 * the errors and 5xx answers it logged (a 500's stack), which its temporary folder takes away with it.
 */
export default async function globalTeardown(): Promise<void> {
  const running = suiteServer.current;
  if (running === undefined) return;
  suiteServer.current = undefined;
  delete process.env[BASE_URL_VARIABLE];
  delete process.env[ADMIN_TOKEN_VARIABLE];
  await printLoggedFailures([{ name: 'standalone', logFile: running.logFile }]);
  await running.stop();
}
