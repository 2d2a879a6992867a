import { resolve } from 'node:path';
import type { Environment } from './config.schema';
import { TrustedProxies } from './trusted-proxies';

/** The services behind the gateway, by the name their settings and routes use. */
export type ServiceName = 'content' | 'segment' | 'profile' | 'ingestion';

export interface S3Settings {
  /** e.g. `http://127.0.0.1:9000`, no trailing slash. */
  readonly endpoint: string;
  readonly accessKey: string;
  readonly secretKey: string;
  readonly bucket: string;
  readonly region: string;
  readonly partSizeBytes: number;
  /** The longest the server may say nothing while a request waits for its answer (`GUIDEPOST_DEPENDENCY_TIMEOUT_MS`). */
  readonly waitLimitMs: number;
}

/** The certificate and key files the API is served with over HTTPS. */
export interface TlsSettings {
  /** Absolute path of the PEM certificate, its chain after it. */
  readonly certFile: string;
  /** Absolute path of its PEM private key. */
  readonly keyFile: string;
  /** How often both are read again, to serve a renewed pair (ms). */
  readonly reloadIntervalMs: number;
}

/**
 * A fetch of a batch consumer waits on the broker until `minBytes` are there or `maxWaitMs` passed
 * (kafkajs `minBytes`, `maxWaitTimeInMs`), so that it is not woken by every produce request.
 */
export interface KafkaBatchFetch {
  readonly minBytes: number;
  readonly maxWaitMs: number;
}

export interface AnalyticsSettings {
  /** Most rows a query answers. */
  readonly maxRows: number;
  /** Most rows an export writes. */
  readonly exportMaxRows: number;
  /** ClickHouse `max_execution_time` of each query and export. */
  readonly maxExecutionSeconds: number;
  /** ClickHouse `max_memory_usage` of each query and export. */
  readonly maxMemoryBytes: number;
  /** Queries of one account running at once in one process. */
  readonly concurrentQueries: number;
}

/** The validated, typed configuration that every module receives by injection. */
export class AppConfig {
  readonly host: string;
  readonly port: number;
  /** The admin API's and `/metrics`' own port; unset, the HTTP port serves them with everything else. */
  readonly adminPort: number | undefined;
  readonly dataDir: string;
  /** HTTPS instead of HTTP when set (`GUIDEPOST_TLS_*`). */
  readonly tls: TlsSettings | undefined;
  /** `GUIDEPOST_PUBLIC_URL` as given: when set, the base of every link (see `PublicBaseUrl` in platform-http). */
  readonly explicitPublicUrl: string | undefined;
  readonly databaseUrl: string | undefined;
  /** ClickHouse over HTTP; unset means the standalone host starts an engine process under `dataDir`. */
  readonly clickhouseUrl: string | undefined;
  /** The most memory the standalone shape's engine process may take (when `clickhouseUrl` is unset). */
  readonly clickhouseEngineMemoryBytes: number;
  readonly adminToken: string | undefined;
  readonly blobSigningSecret: string | undefined;
  readonly rateLimitPerSecond: number;
  /** Proxies in front that append the client's address to `X-Forwarded-For` (whose entries are trusted from the right). */
  readonly trustedProxyHops: number;
  /** The peers whose `X-Forwarded-*` headers are believed (`GUIDEPOST_TRUSTED_PROXIES`). */
  readonly trustedProxies: TrustedProxies;
  /** Imports and event exports one account may have in progress at once. */
  readonly bulkJobsPerAccount: number;
  readonly bodyLimitBytes: number;
  readonly fileLimitBytes: number;
  /** How long a request (headers and body) may take to arrive before it is answered 408 and cut off. */
  readonly requestTimeoutMs: number;
  /** How long a stop (SIGTERM, SIGINT) may take, requests, workers and databases together (ms). */
  readonly shutdownGraceMs: number;
  readonly logLevel: Environment['GUIDEPOST_LOG_LEVEL'];
  readonly demo: boolean;
  readonly migrateOnStart: boolean;
  /** Kafka bootstrap brokers; unset means the in-process bus (standalone). */
  readonly kafkaBrokers: readonly string[] | undefined;
  /** Prefix of topic names and consumer groups (`<namespace>.`), empty when unset. */
  readonly kafkaNamespace: string | undefined;
  readonly kafkaTopicPartitions: number;
  readonly kafkaReplicationFactor: number;
  /** How the fetches of batch consumers (the event sink) gather records before the broker answers. */
  readonly kafkaBatchFetch: KafkaBatchFetch;
  /** The shared secret between the gateway and the services (distributed shape). */
  readonly internalToken: string | undefined;
  /** Where each service answers, for the gateway's routing and the services' internal calls. */
  readonly serviceUrls: Readonly<Record<ServiceName, string | undefined>>;
  /** How often the blob store is swept of expired export files and abandoned uploads (ms). */
  readonly blobSweepIntervalMs: number;
  /** How long published and handled messages are remembered to deduplicate redeliveries (seconds), then pruned. */
  readonly messageDedupWindowSeconds: number;
  /** How often the messaging tables are pruned of what is past the deduplication window (ms). */
  readonly messagePruneIntervalMs: number;
  /** The gateway's patience with a silent service (ms) before it answers 504. */
  readonly gatewayUpstreamTimeoutMs: number;
  /** The longest wait for one answer of a store (PostgreSQL, Kafka, ClickHouse, S3) before it counts as unavailable (ms). */
  readonly dependencyTimeoutMs: number;
  /** How long an `Idempotency-Key` and its first answer are kept (seconds). */
  readonly idempotencyKeyTtlSeconds: number;
  /** The S3 (MinIO) blob store; unset means the folder under `dataDir`. */
  readonly s3: S3Settings | undefined;
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  /** How long a group commit of tracked events waits for company before it starts (ms). */
  readonly trackCommitLingerMs: number;
  readonly eventSinkMaxRows: number;
  readonly eventSinkMaxWaitMs: number;
  /** The limits and budget of analytics queries (`GUIDEPOST_ANALYTICS_*`). */
  readonly analytics: AnalyticsSettings;

  constructor(env: Environment) {
    this.host = env.GUIDEPOST_HOST;
    this.port = env.GUIDEPOST_PORT;
    this.adminPort = env.GUIDEPOST_ADMIN_PORT;
    this.dataDir = resolve(env.GUIDEPOST_DATA_DIR);
    this.tls =
      env.GUIDEPOST_TLS_CERT_FILE && env.GUIDEPOST_TLS_KEY_FILE
        ? {
            certFile: resolve(env.GUIDEPOST_TLS_CERT_FILE),
            keyFile: resolve(env.GUIDEPOST_TLS_KEY_FILE),
            reloadIntervalMs: env.GUIDEPOST_TLS_RELOAD_INTERVAL_MS,
          }
        : undefined;
    this.explicitPublicUrl = env.GUIDEPOST_PUBLIC_URL;
    this.databaseUrl = env.GUIDEPOST_DATABASE_URL;
    this.clickhouseUrl = env.GUIDEPOST_CLICKHOUSE_URL;
    this.clickhouseEngineMemoryBytes = env.GUIDEPOST_CLICKHOUSE_ENGINE_MEMORY_BYTES;
    this.adminToken = env.GUIDEPOST_ADMIN_TOKEN;
    this.blobSigningSecret = env.GUIDEPOST_BLOB_SIGNING_SECRET;
    this.rateLimitPerSecond = env.GUIDEPOST_RATE_LIMIT_PER_SECOND;
    this.trustedProxyHops = env.GUIDEPOST_TRUSTED_PROXY_HOPS;
    this.trustedProxies = TrustedProxies.parse(env.GUIDEPOST_TRUSTED_PROXIES);
    this.bulkJobsPerAccount = env.GUIDEPOST_BULK_JOBS_PER_ACCOUNT;
    this.bodyLimitBytes = env.GUIDEPOST_BODY_LIMIT_BYTES;
    this.fileLimitBytes = env.GUIDEPOST_FILE_LIMIT_BYTES;
    this.requestTimeoutMs = env.GUIDEPOST_REQUEST_TIMEOUT_MS;
    this.shutdownGraceMs = env.GUIDEPOST_SHUTDOWN_GRACE_MS;
    this.logLevel = env.GUIDEPOST_LOG_LEVEL;
    this.demo = env.GUIDEPOST_DEMO;
    this.migrateOnStart = env.GUIDEPOST_MIGRATE_ON_START;
    this.kafkaBrokers = env.GUIDEPOST_KAFKA_BROKERS?.split(',');
    this.kafkaNamespace = env.GUIDEPOST_KAFKA_NAMESPACE;
    this.kafkaTopicPartitions = env.GUIDEPOST_KAFKA_TOPIC_PARTITIONS;
    this.kafkaReplicationFactor = env.GUIDEPOST_KAFKA_REPLICATION_FACTOR;
    this.kafkaBatchFetch = {
      minBytes: env.GUIDEPOST_KAFKA_BATCH_FETCH_MIN_BYTES,
      maxWaitMs: env.GUIDEPOST_KAFKA_BATCH_FETCH_MAX_WAIT_MS,
    };
    this.internalToken = env.GUIDEPOST_INTERNAL_TOKEN;
    this.serviceUrls = {
      content: env.GUIDEPOST_CONTENT_SERVICE_URL,
      segment: env.GUIDEPOST_SEGMENT_SERVICE_URL,
      profile: env.GUIDEPOST_PROFILE_SERVICE_URL,
      ingestion: env.GUIDEPOST_INGESTION_SERVICE_URL,
    };
    this.gatewayUpstreamTimeoutMs = env.GUIDEPOST_GATEWAY_UPSTREAM_TIMEOUT_MS;
    this.dependencyTimeoutMs = env.GUIDEPOST_DEPENDENCY_TIMEOUT_MS;
    this.idempotencyKeyTtlSeconds = env.GUIDEPOST_IDEMPOTENCY_KEY_TTL_SECONDS;
    this.blobSweepIntervalMs = env.GUIDEPOST_BLOB_SWEEP_INTERVAL_MS;
    this.messageDedupWindowSeconds = env.GUIDEPOST_MESSAGE_DEDUP_WINDOW_SECONDS;
    this.messagePruneIntervalMs = env.GUIDEPOST_MESSAGE_PRUNE_INTERVAL_MS;
    this.s3 = env.GUIDEPOST_S3_ENDPOINT
      ? {
          endpoint: env.GUIDEPOST_S3_ENDPOINT.replace(/\/$/, ''),
          accessKey: env.GUIDEPOST_S3_ACCESS_KEY ?? '',
          secretKey: env.GUIDEPOST_S3_SECRET_KEY ?? '',
          bucket: env.GUIDEPOST_S3_BUCKET,
          region: env.GUIDEPOST_S3_REGION,
          partSizeBytes: env.GUIDEPOST_S3_PART_SIZE_BYTES,
          waitLimitMs: env.GUIDEPOST_DEPENDENCY_TIMEOUT_MS,
        }
      : undefined;
    this.smtpUrl = env.GUIDEPOST_SMTP_URL;
    this.mailFrom = env.GUIDEPOST_MAIL_FROM;
    this.trackCommitLingerMs = env.GUIDEPOST_TRACK_COMMIT_LINGER_MS;
    this.eventSinkMaxRows = env.GUIDEPOST_EVENT_SINK_MAX_ROWS;
    this.eventSinkMaxWaitMs = env.GUIDEPOST_EVENT_SINK_MAX_WAIT_MS;
    this.analytics = {
      maxRows: env.GUIDEPOST_ANALYTICS_MAX_ROWS,
      exportMaxRows: env.GUIDEPOST_ANALYTICS_EXPORT_MAX_ROWS,
      maxExecutionSeconds: env.GUIDEPOST_ANALYTICS_MAX_EXECUTION_SECONDS,
      maxMemoryBytes: env.GUIDEPOST_ANALYTICS_MAX_MEMORY_BYTES,
      concurrentQueries: env.GUIDEPOST_ANALYTICS_CONCURRENT_QUERIES,
    };
  }

  /**
   * Absolute base URL (no trailing slash) for what no request names: `GUIDEPOST_PUBLIC_URL` when set,
   * else the address this process listens on, with the scheme it serves. Links in answers are derived
   * from each request instead (`PublicBaseUrl`, platform-http); this one serves the start-up line and
   * the jobs requested before their request's base was recorded with them.
   */
  get defaultPublicUrl(): string {
    const host = this.host === '0.0.0.0' || this.host === '::' ? '127.0.0.1' : this.host;
    return this.explicitPublicUrl ?? `${this.tls ? 'https' : 'http'}://${host}:${this.port}`;
  }

  /** The base of a job's links: the one its request recorded, else (a job requested before bases were recorded) the default. */
  jobLinkBaseUrl(recorded: string | undefined): string {
    return recorded ?? this.defaultPublicUrl;
  }

  /** A copy with some settings replaced; used by hosts that fill in generated values (admin token, secrets). */
  with(overrides: Partial<Pick<AppConfig, 'adminToken' | 'blobSigningSecret' | 'databaseUrl' | 'clickhouseUrl' | 'port'>>): AppConfig {
    return Object.assign(Object.create(AppConfig.prototype) as AppConfig, this, overrides);
  }
}
