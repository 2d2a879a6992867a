import { type ContainerServers, startContainerServers } from './container-servers';

/**
 * The one switch between the two sources of the real servers that the integration specs and the
 * end-to-end suite of the distributed shape run against, GUIDEPOST_TEST_SERVERS:
 * - `scripts` (the default): the servers of scripts/infra, found through the environment or infra.env;
 * - `containers`: Kafka, PostgreSQL, ClickHouse and MinIO in containers (container-servers.ts),
 *   started by the first jest global set-up that asks for them and stopped by the last teardown.
 *   Their endpoints replace the GUIDEPOST_* server variables of the jest process and its workers.
 */
export const SWITCH_VARIABLE = 'GUIDEPOST_TEST_SERVERS';

export type TestServersSource = 'scripts' | 'containers';

export function testServersSource(env: NodeJS.ProcessEnv = process.env): TestServersSource {
  const value = env[SWITCH_VARIABLE] || 'scripts';
  if (value !== 'scripts' && value !== 'containers') {
    throw new Error(`${SWITCH_VARIABLE} must be 'scripts' (scripts/infra, the default) or 'containers' (testcontainers), not '${value}'`);
  }
  return value;
}

/** Shared by the global set-ups of every jest project of one run (they run in the same process). */
const shared = ((
  globalThis as { guidepostContainerServers?: { users: number; servers?: Promise<ContainerServers> } }
).guidepostContainerServers ??= {
  users: 0,
});

/** Points this process's environment at the selected servers, starting the containers when they are the ones. */
export async function useTestServers(): Promise<void> {
  if (testServersSource() !== 'containers') return;
  shared.users += 1;
  if (!shared.servers) {
    process.stdout.write('\nStarting Kafka, PostgreSQL, ClickHouse and MinIO in containers (GUIDEPOST_TEST_SERVERS=containers) ...\n');
    shared.servers = startContainerServers();
  }
  Object.assign(process.env, (await shared.servers).environment);
}

/** Undoes one `useTestServers`; the last one stops the containers. */
export async function releaseTestServers(): Promise<void> {
  if (testServersSource() !== 'containers' || shared.users === 0) return;
  shared.users -= 1;
  if (shared.users > 0) return;
  // A start that failed stopped what it had started.
  const servers = await shared.servers?.catch(() => undefined);
  shared.servers = undefined;
  await servers?.stop();
}
