import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Infrastructure } from './infrastructure';
import { freeLoopbackPorts } from './loopback-port';
import { discardNamespaceData, ensureClickHouseDatabase, ensurePostgresDatabase, namespaceData } from './namespace-data';
import { buildLockOf, whileBuildUnchanged } from './build-lock';
import { type ProcessLauncher, runToCompletion, ServiceProcess, type UnexpectedExit } from './service-process';

/** The processes of the distributed shape, one build, one entry point each. */
export const SERVICE_ROLES = ['content', 'profile', 'ingestion', 'segment', 'gateway'] as const;
export type ServiceRole = (typeof SERVICE_ROLES)[number];

const ENTRY_POINTS: Record<ServiceRole, string> = {
  gateway: 'dist/apps/gateway/src/main.js',
  content: 'dist/apps/content-service/src/main.js',
  segment: 'dist/apps/segment-service/src/main.js',
  profile: 'dist/apps/profile-service/src/main.js',
  ingestion: 'dist/apps/ingestion-service/src/main.js',
};

const REPO_ROOT = repositoryRoot(__dirname);

export interface SuiteOptions {
  readonly infrastructure: Infrastructure;
  /**
   * Keeps this suite's data apart from any other on the same servers: its own PostgreSQL database,
   * ClickHouse database, Kafka topics and consumer groups, and bucket. Reusing a namespace reuses its data.
   */
  readonly namespace: string;
  /** Logs and local folders of the processes. */
  readonly runDir: string;
  readonly ingestionReplicas?: number;
  /** Gateway replicas (`gateway`, `gateway-1`, ...), each on a port of its own; one when absent. */
  readonly gatewayReplicas?: number;
  /** The first gateway's port (a free one when absent). */
  readonly gatewayPort?: number;
  readonly adminToken?: string;
  readonly logLevel?: string;
  /** Extra settings for every process. */
  readonly env?: Record<string, string>;
  /** What runs each process (this Node on `dist/` when absent; e.g. `containerLauncher` for an image). */
  readonly launcher?: ProcessLauncher;
  /** A throwaway namespace (a test's): `stop()` then deletes its topics, groups and databases. */
  readonly discardOnStop?: boolean;
  /** Told when a process dies without being stopped (default: the report on stderr). */
  readonly onUnexpectedExit?: (exit: UnexpectedExit) => void;
}

/**
 * Brings up the distributed shape against real servers: migrates every service with its `migrate`
 * command, then starts each service (and as many ingestion replicas as asked) and the gateway in front,
 * and resolves once every process is ready. Used by `npm run suite` and by the distributed tests,
 * which also kill and restart its processes.
 */
export class DistributedSuite {
  private constructor(
    /** Every gateway replica's base URL, the first (`gateway`) first. */
    readonly gatewayUrls: readonly string[],
    readonly adminToken: string,
    /** The suite's own ClickHouse database (for checks that read the event store directly). */
    readonly clickhouseUrl: string,
    private readonly processes: ReadonlyMap<string, ServiceProcess>,
    private readonly discardData: () => Promise<void>,
  ) {}

  static async start(options: SuiteOptions): Promise<DistributedSuite> {
    if (!/^[a-z0-9_]{1,30}$/.test(options.namespace)) throw new Error(`namespace must match [a-z0-9_]{1,30}: ${options.namespace}`);
    await mkdir(options.runDir, { recursive: true });
    const adminToken = options.adminToken ?? randomBytes(24).toString('hex');
    const ports = await assignPorts(options);
    const env = await sharedEnvironment(options, adminToken, ports);
    // Processes run from an image have their build in it; those run from dist/ start under the build lock.
    const buildLock = options.launcher === undefined ? buildLockOf(REPO_ROOT) : undefined;
    const migrateAll = (): Promise<string[]> =>
      Promise.all(
        SERVICE_ROLES.map((role) =>
          runToCompletion({ name: `migrate-${role}`, entryPoint: ENTRY_POINTS[role], args: ['migrate'], env }, REPO_ROOT, options.launcher),
        ),
      );
    await (buildLock === undefined ? migrateAll() : whileBuildUnchanged(buildLock, migrateAll));

    const processes = new Map<string, ServiceProcess>();
    for (const [name, port] of ports) {
      const role = roleOf(name);
      const processEnv = { ...env, GUIDEPOST_PORT: String(port), GUIDEPOST_DATA_DIR: join(options.runDir, name) };
      const { launcher, onUnexpectedExit } = options;
      const logFile = join(options.runDir, `${name}.log`);
      processes.set(
        name,
        new ServiceProcess({
          name,
          entryPoint: ENTRY_POINTS[role],
          port,
          env: processEnv,
          logFile,
          cwd: REPO_ROOT,
          launcher,
          buildLock,
          onUnexpectedExit,
        }),
      );
    }
    const gatewayUrls = [...ports].filter(([name]) => roleOf(name) === 'gateway').map(([, port]) => `http://127.0.0.1:${port}`);
    // Cleaning up is not what a run is about: data left behind is said, not failed on.
    const discardData = async (): Promise<void> => {
      if (!options.discardOnStop) return;
      await discardNamespaceData(options.infrastructure, namespaceData(options.namespace)).catch((error: unknown) => {
        process.stderr.write(`namespace ${options.namespace}: its data stays on the servers, discarding it failed: ${String(error)}\n`);
      });
    };
    const suite = new DistributedSuite(gatewayUrls, adminToken, env['GUIDEPOST_CLICKHOUSE_URL']!, processes, discardData);
    try {
      await Promise.all([...processes.values()].map((process) => process.start()));
    } catch (error) {
      await suite.stop();
      throw error;
    }
    return suite;
  }

  /** The first gateway's base URL: where clients of the suite go. */
  get gatewayUrl(): string {
    return this.gatewayUrls[0];
  }

  /** A process by name: `gateway`, `gateway-1`, `content`, `segment`, `profile`, `ingestion-0`, `ingestion-1`, ... */
  process(name: string): ServiceProcess {
    const found = this.processes.get(name);
    if (!found) throw new Error(`no process ${name} in this suite (${[...this.processes.keys()].join(', ')})`);
    return found;
  }

  get processNames(): string[] {
    return [...this.processes.keys()];
  }

  /** Stops the gateways first (no new requests), then the services; then discards a throwaway namespace's data. */
  async stop(): Promise<void> {
    await Promise.all([...this.processes].filter(([name]) => roleOf(name) === 'gateway').map(([, process]) => process.stop()));
    await Promise.all([...this.processes.values()].map((process) => process.stop()));
    await this.discardData();
  }
}

function roleOf(processName: string): ServiceRole {
  return processName.replace(/-\d+$/, '') as ServiceRole;
}

/** Process name → port: the gateway's as asked, the services' free. */
async function assignPorts(options: SuiteOptions): Promise<Map<string, number>> {
  const replicas = options.ingestionReplicas ?? 1;
  const names = ['content', 'profile', 'segment', ...Array.from({ length: replicas }, (_, index) => `ingestion-${index}`)];
  const gatewayReplicas = Array.from({ length: (options.gatewayReplicas ?? 1) - 1 }, (_, index) => `gateway-${index + 1}`);
  const order = [...names, 'gateway', ...gatewayReplicas];
  const free = await freeLoopbackPorts(order.length);
  return new Map(order.map((name, index) => [name, name === 'gateway' ? (options.gatewayPort ?? free[index]) : free[index]]));
}

/** The settings every process of the suite shares; creates the namespace's databases first. */
async function sharedEnvironment(options: SuiteOptions, adminToken: string, ports: Map<string, number>): Promise<NodeJS.ProcessEnv> {
  const { infrastructure: infra } = options;
  const data = namespaceData(options.namespace);
  const serviceUrl = (name: string): string => `http://127.0.0.1:${ports.get(name)}`;
  return {
    ...process.env,
    // V8's heap sized as the Helm chart sizes it in a pod; options given to this run come after, so they win.
    NODE_OPTIONS: [chartNodeOptions(), process.env['NODE_OPTIONS']].filter(Boolean).join(' '),
    ...options.env,
    GUIDEPOST_HOST: '127.0.0.1',
    GUIDEPOST_LOG_LEVEL: options.logLevel ?? 'info',
    GUIDEPOST_ADMIN_TOKEN: adminToken,
    GUIDEPOST_INTERNAL_TOKEN: randomBytes(32).toString('hex'),
    GUIDEPOST_MIGRATE_ON_START: 'false',
    GUIDEPOST_DATABASE_URL: await ensurePostgresDatabase(infra.databaseUrl, data.database),
    GUIDEPOST_CLICKHOUSE_URL: await ensureClickHouseDatabase(infra.clickhouseUrl, data.database),
    GUIDEPOST_KAFKA_BROKERS: infra.kafkaBrokers,
    GUIDEPOST_KAFKA_NAMESPACE: data.kafkaNamespace,
    GUIDEPOST_S3_ENDPOINT: infra.s3Endpoint,
    GUIDEPOST_S3_ACCESS_KEY: infra.s3AccessKey,
    GUIDEPOST_S3_SECRET_KEY: infra.s3SecretKey,
    GUIDEPOST_S3_BUCKET: data.bucket,
    GUIDEPOST_CONTENT_SERVICE_URL: serviceUrl('content'),
    GUIDEPOST_SEGMENT_SERVICE_URL: serviceUrl('segment'),
    GUIDEPOST_PROFILE_SERVICE_URL: serviceUrl('profile'),
    // Every replica of a service is equal; the others call the first (production puts a Service in front).
    GUIDEPOST_INGESTION_SERVICE_URL: serviceUrl('ingestion-0'),
  };
}

/**
 * The chart's NODE_OPTIONS for every role (`nodeOptions` in helm/guidepost/values.yaml): the suite,
 * the tests and the benchmark run each process with V8's heap sized as a cluster runs it.
 */
function chartNodeOptions(): string {
  const values = readFileSync(join(REPO_ROOT, 'helm', 'guidepost', 'values.yaml'), 'utf8');
  const line = /^nodeOptions: "([^"]*)"$/m.exec(values);
  if (line === null) throw new Error('helm/guidepost/values.yaml has no top-level `nodeOptions: "..."` line');
  return line[1];
}

/** The folder holding `nx.json` above `from` (this file runs from its source in tests and from `dist/`). */
function repositoryRoot(from: string): string {
  for (let folder = from; folder !== dirname(folder); folder = dirname(folder)) {
    if (existsSync(join(folder, 'nx.json'))) return folder;
  }
  throw new Error(`no nx.json above ${from}`);
}
