import { randomBytes } from 'node:crypto';
import { MinioContainer } from '@testcontainers/minio';
import { PostgreSqlContainer } from '@testcontainers/postgresql';
import { Kafka, logLevel } from 'kafkajs';
import { GenericContainer, type StartedTestContainer, Wait } from 'testcontainers';

/**
 * Kafka, PostgreSQL, ClickHouse and MinIO in containers, started with testcontainers from their
 * official images (or the images the GUIDEPOST_TEST_IMAGE_* variables name: a mirror, or the local
 * stand-ins of scripts/containers/build-test-images.sh). Their endpoints are the environment that
 * scripts/infra writes to infra.env, with the same credentials.
 */

/** Each server's image: the official one unless its variable names another. */
export const IMAGES = {
  kafka: { variable: 'GUIDEPOST_TEST_IMAGE_KAFKA', official: 'apache/kafka:3.9.2' },
  postgres: { variable: 'GUIDEPOST_TEST_IMAGE_POSTGRES', official: 'postgres:18' },
  clickhouse: { variable: 'GUIDEPOST_TEST_IMAGE_CLICKHOUSE', official: 'clickhouse/clickhouse-server:25.8' },
  minio: { variable: 'GUIDEPOST_TEST_IMAGE_MINIO', official: 'minio/minio:RELEASE.2025-09-07T16-13-09Z' },
} as const;

type ServerName = keyof typeof IMAGES;

/** Servers that run until `stop`, and the environment that points the code at them. */
export interface ContainerServers {
  readonly environment: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

interface StartedServer {
  readonly container: StartedTestContainer;
  readonly environment: Record<string, string>;
}

// The credentials of scripts/infra (lib.sh): the same tests run against either set of servers.
const POSTGRES = { user: 'guidepost', password: 'guidepost', database: 'guidepost' };
const CLICKHOUSE = { user: 'guidepost', password: 'guidepost' };
const S3 = { accessKey: 'guidepost', secretKey: 'guidepost-secret' };

const STARTERS: Record<ServerName, (image: string) => Promise<StartedServer>> = {
  kafka: startKafka,
  postgres: startPostgres,
  clickhouse: startClickHouse,
  minio: startMinio,
};

/** Starts the four servers at once; when one fails, stops the others and throws its error. */
export async function startContainerServers(env: NodeJS.ProcessEnv = process.env): Promise<ContainerServers> {
  const names = Object.keys(STARTERS) as ServerName[];
  const outcomes = await Promise.allSettled(names.map((name) => STARTERS[name](imageOf(name, env))));
  const started = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const stop = async (): Promise<void> => {
    await Promise.all(started.map((server) => server.container.stop()));
  };
  const failed = outcomes.findIndex((outcome) => outcome.status === 'rejected');
  if (failed >= 0) {
    await stop();
    const reason = (outcomes[failed] as PromiseRejectedResult).reason as unknown;
    throw new Error(
      `${names[failed]} (${imageOf(names[failed], env)}) did not start: ${reason instanceof Error ? reason.message : String(reason)}`,
    );
  }
  return { environment: Object.assign({}, ...started.map((server) => server.environment)) as Record<string, string>, stop };
}

function imageOf(name: ServerName, env: NodeJS.ProcessEnv): string {
  return env[IMAGES[name].variable] || IMAGES[name].official;
}

// Kafka -------------------------------------------------------------------------------------------

const KAFKA_CLIENT_PORT = 9092;
const KAFKA_BROKER_PORT = 9093;
const KAFKA_CONTROLLER_PORT = 9094;
const ADVERTISED_LISTENERS_FILE = '/tmp/advertised-listeners';
const AWAITING_LISTENERS = 'awaiting the advertised listeners';

/**
 * A single KRaft node of the apache/kafka image, set as scripts/infra sets its broker. Clients must be
 * told the host's address and mapped port, known only once the container runs: the container waits
 * for them in a file before it starts the broker (what the testcontainers Kafka module does for the
 * Confluent image, which is all that module supports).
 */
async function startKafka(image: string): Promise<StartedServer> {
  const container = await new GenericContainer(image)
    .withExposedPorts(KAFKA_CLIENT_PORT)
    .withEnvironment({
      // A KRaft cluster id: 16 bytes in URL-safe base64.
      CLUSTER_ID: randomBytes(16).toString('base64url'),
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_CONTROLLER_QUORUM_VOTERS: `1@localhost:${KAFKA_CONTROLLER_PORT}`,
      KAFKA_LISTENERS: `PLAINTEXT://0.0.0.0:${KAFKA_CLIENT_PORT},BROKER://0.0.0.0:${KAFKA_BROKER_PORT},CONTROLLER://0.0.0.0:${KAFKA_CONTROLLER_PORT}`,
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'PLAINTEXT:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT',
      KAFKA_INTER_BROKER_LISTENER_NAME: 'BROKER',
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_HEAP_OPTS: '-Xms256m -Xmx512m',
      // One broker: every internal topic has one replica (else kafkajs loops on "The group coordinator is not available").
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_DEFAULT_REPLICATION_FACTOR: '1',
      KAFKA_MIN_INSYNC_REPLICAS: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS: '1',
      // The services create their topics with the partition count they are configured for.
      KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
      // Import batches travel as large messages.
      KAFKA_MESSAGE_MAX_BYTES: '16777216',
      KAFKA_REPLICA_FETCH_MAX_BYTES: '16777216',
    })
    .withEntrypoint(['sh', '-c'])
    .withCommand([
      `echo '${AWAITING_LISTENERS}'; while [ ! -s ${ADVERTISED_LISTENERS_FILE} ]; do sleep 0.1; done; ` +
        `KAFKA_ADVERTISED_LISTENERS="$(cat ${ADVERTISED_LISTENERS_FILE})" exec /etc/kafka/docker/run`,
    ])
    .withWaitStrategy(Wait.forLogMessage(AWAITING_LISTENERS))
    .start();
  const brokers = `${container.getHost()}:${container.getMappedPort(KAFKA_CLIENT_PORT)}`;
  await container.copyContentToContainer([
    { content: `PLAINTEXT://${brokers},BROKER://localhost:${KAFKA_BROKER_PORT}`, target: ADVERTISED_LISTENERS_FILE, mode: 0o644 },
  ]);
  try {
    await untilKafkaServes(brokers, 180_000);
  } catch (error) {
    // A broker that never serves says why only in its own log (seen once in CI, never reproduced).
    throw new Error(`${String(error)}\nLast lines of the Kafka container's log:\n${await recentLog(container, 80)}`);
  }
  return { container, environment: { GUIDEPOST_KAFKA_BROKERS: brokers } };
}

/** Ready means what scripts/infra's kafka_ready means: metadata answers and a group coordinator exists. */
async function untilKafkaServes(brokers: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const admin = new Kafka({
      brokers: [brokers],
      logLevel: logLevel.NOTHING,
      connectionTimeout: 1000,
      requestTimeout: 3000,
      retry: { retries: 0 },
    }).admin();
    try {
      await admin.connect();
      await admin.listTopics();
      await admin.describeGroups(['guidepost-test-servers-readiness']);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`Kafka at ${brokers} not ready after ${timeoutMs / 1000}s: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      await admin.disconnect();
    }
  }
}

/** The container's last lines of output; the runtime's log stream follows, so it is read briefly and closed. */
async function recentLog(container: StartedTestContainer, lines: number): Promise<string> {
  try {
    const stream = await container.logs({ tail: lines });
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer | string) => chunks.push(Buffer.from(chunk)));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    stream.destroy();
    return Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    return `(the log could not be read: ${String(error)})`;
  }
}

// PostgreSQL --------------------------------------------------------------------------------------

/**
 * The official image, set as scripts/infra sets its server. It logs "ready to accept connections"
 * twice on a first start (a private server for the set-up, then the real one); waiting for the
 * second replaces the module's health check, which podman runs only under systemd.
 */
async function startPostgres(image: string): Promise<StartedServer> {
  const container = await new PostgreSqlContainer(image)
    .withUsername(POSTGRES.user)
    .withPassword(POSTGRES.password)
    .withDatabase(POSTGRES.database)
    // Five services, each with replicas and pools, plus the test clients; crash tests expect commits on disk.
    .withCommand(['postgres', '-c', 'max_connections=400', '-c', 'fsync=on', '-c', 'synchronous_commit=on'])
    .withWaitStrategy(Wait.forAll([Wait.forLogMessage(/database system is ready to accept connections/, 2), Wait.forListeningPorts()]))
    .start();
  return { container, environment: { GUIDEPOST_DATABASE_URL: container.getConnectionUri() } };
}

// ClickHouse --------------------------------------------------------------------------------------

const CLICKHOUSE_HTTP_PORT = 8123;

/**
 * The official clickhouse/clickhouse-server image over HTTP, the way the code talks to it. Not the
 * testcontainers ClickHouse module: it sets a nofile ulimit of 262144, which an engine without
 * CAP_SYS_RESOURCE cannot grant, and the server runs with the engine's default limits as well.
 */
async function startClickHouse(image: string): Promise<StartedServer> {
  const container = await new GenericContainer(image)
    .withExposedPorts(CLICKHOUSE_HTTP_PORT)
    .withEnvironment({ CLICKHOUSE_USER: CLICKHOUSE.user, CLICKHOUSE_PASSWORD: CLICKHOUSE.password })
    .withWaitStrategy(Wait.forHttp('/ping', CLICKHOUSE_HTTP_PORT).forResponsePredicate((body) => body === 'Ok.\n'))
    .withStartupTimeout(120_000)
    .start();
  const url = new URL(`http://${container.getHost()}:${container.getMappedPort(CLICKHOUSE_HTTP_PORT)}`);
  url.username = CLICKHOUSE.user;
  url.password = CLICKHOUSE.password;
  // The code reads the credentials from the URL and the database from its path (none: the default).
  return { container, environment: { GUIDEPOST_CLICKHOUSE_URL: url.toString().replace(/\/$/, '') } };
}

// MinIO -------------------------------------------------------------------------------------------

async function startMinio(image: string): Promise<StartedServer> {
  const container = await new MinioContainer(image).withUsername(S3.accessKey).withPassword(S3.secretKey).start();
  return {
    container,
    environment: {
      GUIDEPOST_S3_ENDPOINT: container.getConnectionUrl(),
      GUIDEPOST_S3_ACCESS_KEY: S3.accessKey,
      GUIDEPOST_S3_SECRET_KEY: S3.secretKey,
    },
  };
}
