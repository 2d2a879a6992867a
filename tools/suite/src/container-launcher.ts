import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { ProcessLauncher } from './service-process';

const run = promisify(execFile);

/** The label on every container of one suite, valued with the suite's namespace. */
const SUITE_LABEL = 'io.guidepost.suite';

/** The container of a suite's process: `guidepost-<namespace>-<process>` (e.g. `guidepost-local-gateway`). */
export function containerName(namespace: string, processName: string): string {
  return `guidepost-${namespace}-${processName}`;
}

/**
 * Runs each process of the suite in a container of IMAGE (the service image of deploy/Dockerfile)
 * with podman, as a cluster would: the image's non-root user, a read-only root filesystem with
 * /tmp and /data as the only writable places, the process's GUIDEPOST_* settings and NODE_OPTIONS, and the host's
 * network so that the servers of scripts/infra and the other processes answer on loopback as they do
 * for the processes the suite runs directly. Containers are kept after they exit (their exit code is
 * evidence); `removeSuiteContainers` removes them.
 */
export function containerLauncher(image: string, namespace: string): ProcessLauncher {
  return ({ name, entryPoint, args, env }) => {
    // Passed by name: podman reads the values from its own environment, so no secret is on a command line.
    const settings = Object.keys(env).filter(
      (variable) => (variable.startsWith('GUIDEPOST_') && variable !== 'GUIDEPOST_DATA_DIR') || variable === 'NODE_OPTIONS',
    );
    return {
      command: 'podman',
      args: [
        'run',
        '--replace',
        '--name',
        containerName(namespace, name),
        '--label',
        `${SUITE_LABEL}=${namespace}`,
        '--network',
        'host',
        '--read-only',
        '--tmpfs',
        '/tmp',
        '--tmpfs',
        '/data',
        '--env',
        'GUIDEPOST_DATA_DIR=/data',
        ...settings.flatMap((variable) => ['--env', variable]),
        image,
        'node',
        entryPoint,
        ...args,
      ],
    };
  };
}

/** Removes every container of the suite, running or not. */
export async function removeSuiteContainers(namespace: string): Promise<void> {
  const { stdout } = await run('podman', ['ps', '--all', '--quiet', '--filter', `label=${SUITE_LABEL}=${namespace}`]);
  const ids = stdout.split('\n').filter(Boolean);
  if (ids.length > 0) await run('podman', ['rm', '--force', ...ids]);
}
