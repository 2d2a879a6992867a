import { resolve } from 'node:path';
// A relative path, not the alias: jest loads global set-up without its module mapping.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { buildDist } from '../../tools/suite/src/build-lock';
import { ADMIN_TOKEN_VARIABLE, BASE_URL_VARIABLE } from './support/client';
import { startServer, type RunningServer } from './support/server-process';

/** What setup started, for teardown (both run in jest's parent process). */
export const suiteServer: { current?: RunningServer } = ((globalThis as { guidepostE2e?: { current?: RunningServer } }).guidepostE2e ??=
  {});

/**
 * The suite runs against `GUIDEPOST_E2E_BASE_URL` with `GUIDEPOST_E2E_ADMIN_TOKEN` when both are set
 * (a deployed or distributed server); otherwise it brings `dist/` up to date (an incremental build:
 * the specs also start servers of their own from it) unless `GUIDEPOST_E2E_ENTRY_POINT` names another
 * build, starts the standalone server from it, and exports both variables to the test files.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env[BASE_URL_VARIABLE] && process.env[ADMIN_TOKEN_VARIABLE]) return;
  if (process.env['GUIDEPOST_E2E_ENTRY_POINT'] === undefined) await buildDist(resolve(__dirname, '..', '..'));
  const running = await startServer();
  suiteServer.current = running;
  process.env[BASE_URL_VARIABLE] = running.baseUrl;
  process.env[ADMIN_TOKEN_VARIABLE] = running.adminToken;
}
