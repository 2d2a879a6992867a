import { ADMIN_TOKEN_VARIABLE, BASE_URL_VARIABLE } from './support/client';
import { suiteServer } from './global-setup';

/** Stops the server that global-setup started (never one that was handed to the suite). */
export default async function globalTeardown(): Promise<void> {
  const running = suiteServer.current;
  if (running === undefined) return;
  suiteServer.current = undefined;
  delete process.env[BASE_URL_VARIABLE];
  delete process.env[ADMIN_TOKEN_VARIABLE];
  await running.stop();
}
