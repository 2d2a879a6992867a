import { stopStartedSuite } from './e2e-global-setup';

export default async function globalTeardown(): Promise<void> {
  await stopStartedSuite();
}
