import { releaseTestServers } from './test-servers';

export default async function globalTeardown(): Promise<void> {
  await releaseTestServers();
}
