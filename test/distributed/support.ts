import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
// A relative path, not the alias: jest loads global set-up (e2e-global-setup uses this file) without its module mapping.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { DistributedSuite, type Infrastructure, infrastructureDir, loadInfrastructure } from '../../tools/suite/src';
import { createAccount, type TestAccount } from '../e2e/support';
import { useServer } from '../e2e/support-segments';

export { eventsFile, Tracker, type TrackOutcome } from '../e2e/support-tracking';

const REPO_ROOT = resolve(__dirname, '..', '..');

/** Out of the way of the load the scaling and crash specs make (the default is 60 requests a second per account). */
const LOAD_RATE_LIMIT = { GUIDEPOST_RATE_LIMIT_PER_SECOND: '100000' };

/**
 * A distributed suite of its own for one spec file: its own namespace (database, topics, bucket),
 * logs kept in a temporary folder; its databases, topics and groups are deleted when it stops.
 */
export async function startSuite(options: SuiteShape & { env?: Record<string, string> } = {}): Promise<DistributedSuite> {
  const namespace = `t${randomBytes(4).toString('hex')}`;
  const runDir = await mkdtemp(join(tmpdir(), `guidepost-${namespace}-`));
  return DistributedSuite.start({
    infrastructure: loadInfrastructure(),
    namespace,
    runDir,
    ingestionReplicas: options.ingestionReplicas,
    gatewayReplicas: options.gatewayReplicas,
    logLevel: 'info',
    env: options.env,
    discardOnStop: true,
  });
}

/** How many replicas of the scaled processes a spec's suite runs (one each when absent). */
export interface SuiteShape {
  readonly ingestionReplicas?: number;
  readonly gatewayReplicas?: number;
}

/** What a spec file's suite gives its tests, once `beforeAll` has run. */
export interface SpecSuite {
  readonly suite: DistributedSuite;
  /** An account made for the spec file. */
  readonly account: TestAccount;
}

/**
 * Runs a suite for the spec file: started before its tests (with an account, and the e2e client
 * pointed at the first gateway), stopped after them. Load specs get a rate limit out of their way,
 * unless the spec is about the rate limit itself (`rateLimitPerSecond`).
 */
export function useSpecSuite(options: SuiteShape & { rateLimitPerSecond?: number } = {}): SpecSuite {
  const state: { suite?: DistributedSuite; account?: TestAccount; pointBack?: () => void } = {};
  beforeAll(async () => {
    const env =
      options.rateLimitPerSecond === undefined ? LOAD_RATE_LIMIT : { GUIDEPOST_RATE_LIMIT_PER_SECOND: String(options.rateLimitPerSecond) };
    state.suite = await startSuite({ ...options, env });
    state.pointBack = useServer({ baseUrl: state.suite.gatewayUrl, adminToken: state.suite.adminToken });
    state.account = await createAccount();
  }, 240_000);
  afterAll(async () => {
    state.pointBack?.();
    await state.suite?.stop();
  }, 120_000);
  return {
    get suite() {
      if (!state.suite) throw new Error('the suite is not started yet (use it inside a test)');
      return state.suite;
    },
    get account() {
      if (!state.account) throw new Error('the suite is not started yet (use it inside a test)');
      return state.account;
    },
  };
}

/** Where a suite's events are: its ClickHouse URL, the database as the path (a suite, or a deployed release's). */
export type EventStore = Pick<DistributedSuite, 'clickhouseUrl'>;

/** Runs a query against the suite's own ClickHouse database and returns its rows. */
export async function clickhouseRows<T>(suite: EventStore, query: string): Promise<T[]> {
  // The suite's URL names its database as the path, as the client reads it; the HTTP interface takes it as a parameter.
  const url = new URL(suite.clickhouseUrl);
  url.searchParams.set('database', url.pathname.slice(1));
  url.pathname = '/';
  url.searchParams.set('default_format', 'JSONEachRow');
  const response = await fetch(url, { method: 'POST', body: query });
  const text = await response.text();
  if (!response.ok) throw new Error(`ClickHouse answered ${response.status}: ${text}`);
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as T);
}

/** The value of a counter (summed over its label sets) on one process's `/metrics`, 0 when absent. */
export async function metricTotal(processUrl: string, metric: string): Promise<number> {
  const text = await (await fetch(`${processUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${metric}{`) || line.startsWith(`${metric} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** The scripts of scripts/infra that act on a running set, with their arguments. */
const INFRASTRUCTURE_COMMANDS = { stop: ['stop.sh'], start: ['start.sh'], freeze: ['freeze.sh'], thaw: ['freeze.sh', '--thaw'] } as const;

/**
 * Stops, starts, freezes (SIGSTOP) or thaws one of the servers of scripts/infra (the Kafka broker, say):
 * those of GUIDEPOST_INFRA_DIR (~/.cache/guidepost/run when unset), which must be the ones the suites use.
 */
export async function infrastructure(
  command: keyof typeof INFRASTRUCTURE_COMMANDS,
  server: 'kafka' | 'postgres' | 'clickhouse' | 'minio',
): Promise<void> {
  const stopped = loadInfrastructure({ GUIDEPOST_INFRA_DIR: process.env['GUIDEPOST_INFRA_DIR'] });
  const used = loadInfrastructure();
  // Another set's infra.env sourced beside this GUIDEPOST_INFRA_DIR: the outage would miss the suite, and the spec could not fail.
  if (JSON.stringify(stopped) !== JSON.stringify(used)) {
    throw new Error(
      `the suites use servers other than those of ${infrastructureDir()}: source its infra.env, or set GUIDEPOST_INFRA_DIR to the set whose infra.env is sourced`,
    );
  }
  // start.sh takes a server's port from GUIDEPOST_INFRA_*_PORT, not from the set's infra.env: without
  // the same settings a private set's server would come back on another set's port (checked before
  // the stop too, so that a server is never stopped that could not be started again).
  const [variable, fallback, endpoint] = START_PORTS[server];
  const port = new URL(endpoint(used).includes('://') ? endpoint(used) : `tcp://${endpoint(used)}`).port;
  if (port !== (process.env[variable] ?? fallback)) {
    throw new Error(
      `${server} answers on port ${port} but ${variable} says ${process.env[variable] ?? `${fallback} (unset)`}: export the settings the set was started with`,
    );
  }
  const [script, ...options] = INFRASTRUCTURE_COMMANDS[command];
  await promisify(execFile)(join(REPO_ROOT, 'scripts', 'infra', script), [...options, server], { cwd: REPO_ROOT });
}

/** Per server: the variable start.sh reads its port from, its default, and where the suites reach it. */
const START_PORTS: Record<'kafka' | 'postgres' | 'clickhouse' | 'minio', [string, string, (infrastructure: Infrastructure) => string]> = {
  kafka: ['GUIDEPOST_INFRA_KAFKA_PORT', '19092', (servers) => servers.kafkaBrokers.split(',')[0]],
  postgres: ['GUIDEPOST_INFRA_POSTGRES_PORT', '15432', (servers) => servers.databaseUrl],
  clickhouse: ['GUIDEPOST_INFRA_CLICKHOUSE_PORT', '18123', (servers) => servers.clickhouseUrl],
  minio: ['GUIDEPOST_INFRA_MINIO_PORT', '19000', (servers) => servers.s3Endpoint],
};

/** What the event store holds of one account, through `FINAL` (as every read sees it). */
export interface StoredEvents {
  rows: number;
  distinct_ids: number;
  /** The smallest and largest attribute `n` (the line number in `eventsFile`). */
  min_n: number;
  max_n: number;
}

/** The sinks run behind a job's completion: waits (up to two minutes) until `expected` rows are stored. */
export async function eventuallyStoredEvents(suite: DistributedSuite, accountId: string, expected: number): Promise<StoredEvents> {
  const deadline = Date.now() + 120_000;
  let stored = await storedEvents(suite, accountId);
  while (stored.rows < expected && Date.now() < deadline) {
    await new Promise((done) => setTimeout(done, 500));
    stored = await storedEvents(suite, accountId);
  }
  return stored;
}

export async function storedEvents(suite: DistributedSuite, accountId: string): Promise<StoredEvents> {
  const [row] = await clickhouseRows<StoredEvents>(
    suite,
    `SELECT toUInt32(count()) AS rows, toUInt32(uniqExact(event_id)) AS distinct_ids,
            toUInt32(min(JSONExtractUInt(attributes, 'n'))) AS min_n, toUInt32(max(JSONExtractUInt(attributes, 'n'))) AS max_n
       FROM events FINAL WHERE account_id = ${quoted(accountId)}`,
  );
  return row;
}

/**
 * Waits (up to two minutes) until every one of `acknowledged` (attribute `n`) is stored for the account,
 * and returns the ones still missing then. Waiting for a count is not enough: requests that failed
 * after their commit (the process was killed before answering) are stored too, so the count can be
 * reached before the last acknowledged events are.
 */
export async function missingNumbers(suite: EventStore, accountId: string, acknowledged: readonly number[]): Promise<number[]> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const stored = new Set(await storedNumbers(suite, accountId));
    const missing = acknowledged.filter((n) => !stored.has(n));
    if (missing.length === 0 || Date.now() > deadline) return missing;
    await new Promise((done) => setTimeout(done, 500));
  }
}

/** The attribute `n` of every stored event of one account, ascending. */
export async function storedNumbers(suite: EventStore, accountId: string): Promise<number[]> {
  const rows = await clickhouseRows<{ n: number }>(
    suite,
    `SELECT toUInt32(JSONExtractUInt(attributes, 'n')) AS n FROM events FINAL WHERE account_id = ${quoted(accountId)} ORDER BY n`,
  );
  return rows.map((row) => row.n);
}

function quoted(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

export function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
