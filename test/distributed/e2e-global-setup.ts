import { ADMIN_TOKEN_VARIABLE, BASE_URL_VARIABLE } from '../e2e/support/client';
import type { DistributedSuite } from '@guidepost/tools-suite';
// A relative path, not the alias: jest loads global set-up without its module mapping.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { printLoggedFailures } from '../../tools/suite/src/logged-failures';
import { releaseTestServers, useTestServers } from '../containers/test-servers';
import { startSuite } from './support';
import buildBeforeTheSpecs from './global-setup';

/** What setup started, for teardown (both run in jest's parent process). */
const started = ((globalThis as { guidepostDistributedE2e?: { suite?: DistributedSuite } }).guidepostDistributedE2e ??= {});

/**
 * The end-to-end suite of the standalone shape, run against the distributed shape: brings up every
 * service behind the gateway on the real servers (those GUIDEPOST_TEST_SERVERS selects), and points
 * the specs at the gateway. The build in `dist/` is brought up to date first: the suite runs from it.
 */
export default async function globalSetup(): Promise<void> {
  await buildBeforeTheSpecs();
  await useTestServers();
  const suite = await startSuite();
  started.suite = suite;
  process.env[BASE_URL_VARIABLE] = suite.gatewayUrl;
  process.env[ADMIN_TOKEN_VARIABLE] = suite.adminToken;
  process.stdout.write(`\nDistributed suite up: gateway ${suite.gatewayUrl}; logs beside ${suite.process('gateway').logFile}\n`);
}

/** Stops the suite, first printing the errors and 5xx answers its processes logged (a 500's stack: the answer has none of it). */
export async function stopStartedSuite(): Promise<void> {
  const { suite } = started;
  if (suite !== undefined) {
    await printLoggedFailures(suite.processNames.map((name) => ({ name, logFile: suite.process(name).logFile })));
    await suite.stop();
  }
  await releaseTestServers();
}
