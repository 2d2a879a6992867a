import { Kafka, KafkaJSDeleteGroupsError, logLevel } from 'kafkajs';
import { Client } from 'pg';
import type { Infrastructure } from './infrastructure';

/**
 * Where a suite's namespace keeps its data on the shared servers: a PostgreSQL database and a
 * ClickHouse database of the same name, and Kafka topics and consumer groups under a prefix.
 */
export interface NamespaceData {
  readonly database: string;
  readonly kafkaNamespace: string;
  readonly bucket: string;
}

export function namespaceData(namespace: string): NamespaceData {
  const dashed = namespace.replace(/_/g, '-');
  return { database: `guidepost_${namespace}`, kafkaNamespace: dashed, bucket: `guidepost-${dashed}` };
}

/** Creates the database when missing; returns the server's URL pointing at it. */
export async function ensurePostgresDatabase(serverUrl: string, database: string): Promise<string> {
  await withPostgres(serverUrl, async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${database}"`);
  });
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Creates the database when missing; returns the server's URL with the database as its path. */
export async function ensureClickHouseDatabase(serverUrl: string, database: string): Promise<string> {
  await clickHouseStatement(serverUrl, `CREATE DATABASE IF NOT EXISTS ${database}`);
  const withDatabase = new URL(serverUrl);
  withDatabase.pathname = `/${database}`;
  return withDatabase.toString().replace(/\/$/, '');
}

/**
 * Deletes what a throwaway namespace left on the shared servers: its Kafka topics and consumer groups
 * and its two databases. Test runs make a namespace each; kept, they pile up, and a broker holding
 * thousands of partitions takes minutes to restart (the outage specs restart it). Call it once the
 * namespace's processes are stopped.
 */
export async function discardNamespaceData(infrastructure: Infrastructure, data: NamespaceData): Promise<void> {
  await discardKafkaNamespace(infrastructure.kafkaBrokers, data.kafkaNamespace);
  await withPostgres(infrastructure.databaseUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${data.database}" WITH (FORCE)`));
  await clickHouseStatement(infrastructure.clickhouseUrl, `DROP DATABASE IF EXISTS ${data.database}`);
}

async function discardKafkaNamespace(brokers: string, kafkaNamespace: string): Promise<void> {
  const admin = new Kafka({ brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const prefix = `${kafkaNamespace}.`;
    // Topics first: they are what weighs on the broker, and deleting them drops most groups' offsets.
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
    const groups = (await admin.listGroups()).groups.map((group) => group.groupId).filter((group) => group.startsWith(prefix));
    if (groups.length > 0) await admin.deleteGroups(groups).catch(unlessOnlyGone);
  } finally {
    await admin.disconnect();
  }
}

/** A group listed a moment ago may be gone by the time it is deleted (its offsets went with its topics): that is the aim. */
function unlessOnlyGone(error: unknown): void {
  const gone = (group: { error?: { type?: string } }): boolean => group.error?.type === 'GROUP_ID_NOT_FOUND';
  if (error instanceof KafkaJSDeleteGroupsError && error.groups.every(gone)) return;
  throw error;
}

async function withPostgres<T>(serverUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Runs one statement on the ClickHouse server of `serverUrl` (its credentials, if any, as Basic auth); resolves to the answer's text. */
export async function clickHouseStatement(serverUrl: string, statement: string): Promise<string> {
  const url = new URL(serverUrl);
  url.pathname = '/';
  url.searchParams.set('query', statement);
  const response = await fetch(withoutCredentials(url), { method: 'POST', headers: basicAuthorization(url) });
  const text = await response.text();
  if (!response.ok) throw new Error(`ClickHouse refused ${statement}: ${response.status} ${text}`);
  return text;
}

/** The URL without the user and password it names (fetch refuses a URL that carries credentials). */
function withoutCredentials(url: URL): URL {
  const bare = new URL(url);
  bare.username = '';
  bare.password = '';
  return bare;
}

/** The credentials a URL names as an HTTP Basic Authorization header, which ClickHouse accepts; none when it names none. */
function basicAuthorization(url: URL): Record<string, string> {
  if (!url.username) return {};
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return { Authorization: `Basic ${Buffer.from(credentials).toString('base64')}` };
}
