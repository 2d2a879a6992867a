import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { containerLauncher, removeSuiteContainers } from './container-launcher';
import { DistributedSuite } from './distributed-suite';
import { infrastructureDir, loadInfrastructure } from './infrastructure';
import { describeUnexpectedExit, type UnexpectedExit } from './service-process';

const USAGE = `Usage: npm run suite -- [--port 8080] [--ingestion-replicas 1] [--namespace local] [--image IMAGE] [--discard]
Brings up the distributed shape (gateway, content, segment, profile and ingestion services) against the
servers that scripts/infra/start.sh runs, and keeps it in the foreground until Ctrl-C (or SIGTERM).
--image runs each process in a podman container of that service image (scripts/images/build.sh),
named guidepost-<namespace>-<process>, instead of this Node on dist/.
--discard deletes the namespace's topics, consumer groups and databases when the suite stops.
A process that dies (a crash, a kill) stops the whole suite with exit code 1, after a report naming
it, its exit code or signal and the end of its log: a suite missing a process is not left serving.`;

/** `npm run suite`: the whole distributed suite on this machine, for trying it out. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8080' },
      'ingestion-replicas': { type: 'string', default: '1' },
      namespace: { type: 'string', default: 'local' },
      image: { type: 'string' },
      discard: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const port = positiveInteger(values.port, '--port');
  const ingestionReplicas = positiveInteger(values['ingestion-replicas'], '--ingestion-replicas');
  const runDir = join(infrastructureDir(), 'suite', values.namespace);
  process.stdout.write(`Starting the distributed suite (logs in ${runDir}) ...\n`);
  // Containers are kept after they exit (their exit code tells how they stopped): the suite removes its own.
  const removeContainers = async (): Promise<void> => {
    if (values.image !== undefined) await removeSuiteContainers(values.namespace);
  };
  let stopping: Promise<void> | undefined;
  const started: { suite?: DistributedSuite } = {};
  // A suite with a process missing would answer 503s that say nothing of why: it stops, saying why.
  const stopAfterDeath = (exit: UnexpectedExit): void => {
    process.stderr.write(`${describeUnexpectedExit(exit)}\nStopping the suite (exit code 1).\n`);
    stopping ??= Promise.resolve(started.suite?.stop())
      .then(removeContainers)
      .finally(() => process.exit(1));
  };
  const suite = await DistributedSuite.start({
    infrastructure: loadInfrastructure(),
    namespace: values.namespace,
    runDir,
    ingestionReplicas,
    gatewayPort: port,
    adminToken: process.env['GUIDEPOST_ADMIN_TOKEN'],
    launcher: values.image === undefined ? undefined : containerLauncher(values.image, values.namespace),
    discardOnStop: values.discard,
    onUnexpectedExit: stopAfterDeath,
  }).catch(async (error: unknown) => {
    await removeContainers();
    throw error;
  });
  started.suite = suite;
  process.stdout.write(
    [
      `Guidepost (distributed) is serving the API at ${suite.gatewayUrl}`,
      `Admin token: ${suite.adminToken}`,
      `Processes: ${suite.processNames.map((name) => `${name} ${suite.process(name).url}`).join(', ')}`,
      'Ctrl-C stops the suite (the servers of scripts/infra keep running; scripts/infra/stop.sh stops them).',
    ].join('\n') + '\n',
  );
  const stop = (): void => {
    stopping ??= suite
      .stop()
      .then(removeContainers)
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function positiveInteger(value: string, option: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`${option} must be a positive integer, not ${value}`);
  return parsed;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
