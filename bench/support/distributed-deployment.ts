import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
// The suite's own launcher (relative: the benchmark is compiled on its own, bench/tsconfig.json).
import { DistributedSuite } from '../../tools/suite/src/distributed-suite';
import { infrastructureDir, loadInfrastructure } from '../../tools/suite/src/infrastructure';
import { namespaceData } from '../../tools/suite/src/namespace-data';
import { createClickHouseClient } from '@guidepost/platform-clickhouse';
import { loadConfig } from '@guidepost/platform-config';
import type { Deployment } from './deployment';
import { readProc, type NamedProcess } from './process-tree';

// Compiled to dist/bench/bench/support: the repository is four levels up.
const REPO_ROOT = resolve(__dirname, '..', '..', '..', '..');
/** High enough that the per-account rate limit never answers 429 to the load generator. */
const UNTHROTTLED_REQUESTS_PER_SECOND = 1_000_000_000;
/** The servers scripts/infra runs, by the name of their pid file (scripts/infra/lib.sh `pid_file`), as the report names them. */
const INFRA_SERVERS = {
  kafka: 'Kafka (java)',
  postgres: 'PostgreSQL',
  clickhouse: 'ClickHouse (chdb HTTP front)',
  minio: 'MinIO',
} as const;

/**
 * The distributed shape as `npm run suite` brings it up (gateway, content, segment, profile and
 * `ingestionReplicas` ingestion services, from dist/) on the servers of scripts/infra, in a throwaway namespace whose
 * topics, consumer groups and databases are deleted when it stops. Starts the servers first
 * (scripts/infra/start.sh does nothing when they run).
 */
export async function startDistributed(runDir: string, ingestionReplicas = 1): Promise<Deployment> {
  await startInfrastructure();
  const infrastructure = loadInfrastructure();
  const namespace = `bench_${Date.now().toString(36)}`;
  const suite = await DistributedSuite.start({
    infrastructure,
    namespace,
    runDir,
    ingestionReplicas,
    logLevel: 'warn',
    env: { GUIDEPOST_RATE_LIMIT_PER_SECOND: String(UNTHROTTLED_REQUESTS_PER_SECOND) },
    discardOnStop: true,
  });
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopped ??= suite.stop());
  try {
    const processes = [...suite.processNames.map((name) => ({ name, pid: pidOf(suite, name) })), ...infrastructureProcesses()];
    // The suite's own ClickHouse database, over HTTP as the services reach it.
    const openEventStore = () => {
      const client = createClickHouseClient(loadConfig({ GUIDEPOST_CLICKHOUSE_URL: suite.clickhouseUrl }));
      return Promise.resolve({ client, close: () => client.close() });
    };
    const eventStoreProcess = processes.find((named) => named.name === INFRA_SERVERS.clickhouse);
    return {
      shape: 'distributed',
      baseUrl: suite.gatewayUrl,
      adminToken: suite.adminToken,
      processes,
      eventStoreProcess,
      openEventStore,
      exclusiveEventStore: false,
      kafka: {
        brokers: infrastructure.kafkaBrokers.split(','),
        topicPrefix: `${namespaceData(namespace).kafkaNamespace}.`,
        // The services create their topics with the default of GUIDEPOST_KAFKA_TOPIC_PARTITIONS.
        partitions: loadConfig({}).kafkaTopicPartitions,
        brokerProcess: processes.find((named) => named.name === INFRA_SERVERS.kafka),
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function startInfrastructure(): Promise<void> {
  const script = join(REPO_ROOT, 'scripts', 'infra', 'start.sh');
  try {
    const { stderr } = await promisify(execFile)(script, { cwd: REPO_ROOT });
    if (stderr.trim() !== '') process.stderr.write(stderr);
  } catch (error) {
    const output = (error as { stderr?: string }).stderr ?? '';
    throw new Error(
      `scripts/infra/start.sh could not start the servers of the distributed shape: ${output.trim().split('\n').at(-1) ?? String(error)}`,
    );
  }
}

function pidOf(suite: DistributedSuite, name: string): number {
  const pid = suite.process(name).pid;
  if (pid === undefined) throw new Error(`suite process ${name} has no process id`);
  return pid;
}

/**
 * The servers' processes from their pid files, each checked as scripts/infra/lib.sh `running_pid`
 * does (a recycled pid's command line does not name the server's state folder); those not found are
 * left out of the report rather than misnamed.
 */
function infrastructureProcesses(): NamedProcess[] {
  const dir = infrastructureDir();
  return Object.entries(INFRA_SERVERS).flatMap(([server, name]) => {
    const pid = Number(readFileOrEmpty(join(dir, `${server}.pid`)).trim());
    const running = Number.isInteger(pid) && pid > 0 && (readProc(pid, 'cmdline') ?? '').includes(`${join(dir, server)}/`);
    return running ? [{ name, pid, server: true }] : [];
  });
}

function readFileOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
