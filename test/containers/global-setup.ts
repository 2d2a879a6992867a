import { useTestServers } from './test-servers';

/** Global set-up of the integration specs: the servers GUIDEPOST_TEST_SERVERS selects. */
export default async function globalSetup(): Promise<void> {
  await useTestServers();
}
