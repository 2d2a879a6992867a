import { Type, type Static } from '@sinclair/typebox';

/**
 * Every setting Guidepost reads from its environment, in one schema. Each has a default that works on
 * a developer machine, so the standalone shape starts with no variables at all.
 */
export const EnvironmentSchema = Type.Object({
  GUIDEPOST_HOST: Type.String({ default: '127.0.0.1', description: 'Interface the HTTP server binds to (`0.0.0.0` in containers)' }),
  GUIDEPOST_PORT: Type.Integer({
    minimum: 1,
    maximum: 65535,
    default: 8080,
    description: 'Port the API is served on (HTTP, or HTTPS with GUIDEPOST_TLS_CERT_FILE)',
  }),
  GUIDEPOST_ADMIN_PORT: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 65535,
      description:
        "The gateway's port for the admin API and `/metrics`, so that they can be kept off the public network: GUIDEPOST_PORT then answers neither (404, as an unknown route) and this port answers only them and the health probes (the Helm chart sets it). Other processes ignore it and serve everything on GUIDEPOST_PORT",
    }),
  ),
  GUIDEPOST_TLS_CERT_FILE: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'PEM certificate (the chain after it) to serve HTTPS with, plain HTTP being refused: the standalone server, or a gateway with no TLS ingress in front. Set with GUIDEPOST_TLS_KEY_FILE; a renewed pair is served to new connections without a restart',
    }),
  ),
  GUIDEPOST_TLS_KEY_FILE: Type.Optional(
    Type.String({ minLength: 1, description: 'PEM private key (unencrypted) of GUIDEPOST_TLS_CERT_FILE' }),
  ),
  GUIDEPOST_TLS_RELOAD_INTERVAL_MS: Type.Integer({
    minimum: 1_000,
    maximum: 60 * 60 * 1000,
    default: 10_000,
    description:
      'How often the certificate and key files are read again (ms); a changed pair is served to new connections, one that is half written or whose key does not match is not (the server keeps the pair it has and logs why)',
  }),
  GUIDEPOST_DATA_DIR: Type.String({ default: '.guidepost', description: 'Folder for embedded PostgreSQL, blobs and generated secrets' }),
  GUIDEPOST_PUBLIC_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s]+[^/\\s]$',
      description:
        "Absolute base URL of every link in an answer (`url`, `job_url`, `status_url`, an import's `failures_url`, download links), used as given. When unset, each request's links are derived from the request: the `Host` header and the connection's scheme (`https` when TLS is served), or `X-Forwarded-Host` and `X-Forwarded-Proto` when the peer is one of GUIDEPOST_TRUSTED_PROXIES; links of a job (an import's failures, an export's download) use the base of the request that created it",
    }),
  ),
  GUIDEPOST_DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      description: 'PostgreSQL connection string; the standalone shape starts an embedded server when unset',
    }),
  ),
  GUIDEPOST_CLICKHOUSE_URL: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description:
        'ClickHouse HTTP endpoint of the event store (credentials in the URL, database in the path); the standalone shape starts the ClickHouse engine (chdb) as a process of its own, data under the data folder, when unset',
    }),
  ),
  GUIDEPOST_CLICKHOUSE_ENGINE_MEMORY_BYTES: Type.Integer({
    minimum: 256 * 1024 * 1024,
    default: 640 * 1024 * 1024,
    description:
      "Memory the standalone shape's ClickHouse engine process (no GUIDEPOST_CLICKHOUSE_URL) may take for its queries and caches together; a query that would pass it fails. With the engine code, the process stays under about 1 GiB",
  }),
  GUIDEPOST_ADMIN_TOKEN: Type.Optional(
    Type.String({ minLength: 16, description: 'Bearer token of the admin API; the standalone shape generates one when unset' }),
  ),
  GUIDEPOST_BLOB_SIGNING_SECRET: Type.Optional(
    Type.String({ minLength: 32, description: 'Secret that signs blob download links; generated and kept in the data folder when unset' }),
  ),
  GUIDEPOST_RATE_LIMIT_PER_SECOND: Type.Integer({
    minimum: 1,
    default: 60,
    description:
      'Requests per second allowed per account, one budget across every gateway replica; one more is answered 429 with `Retry-After`',
  }),
  GUIDEPOST_TRUSTED_PROXY_HOPS: Type.Integer({
    minimum: 0,
    maximum: 10,
    default: 0,
    description:
      "Proxies in front of the gateway (or the standalone server) that append the client's address to `X-Forwarded-For`, such as an Ingress controller (the Helm chart sets 1). Repeated failed authentication is throttled per client address: 0 takes the peer's address, n the address the n-th proxy appended, counted from the right (what a client writes itself further left is never trusted). Too low counts every client behind the proxy as one address; too high lets a client choose its own",
  }),
  GUIDEPOST_TRUSTED_PROXIES: Type.String({
    pattern: '^[0-9A-Fa-f.:/, ]+$',
    default: '127.0.0.1,::1',
    description:
      'IP addresses and CIDR blocks (e.g. `10.0.0.0/8,fd00::/8`), separated by commas, of the proxies whose `X-Forwarded-Host` and `X-Forwarded-Proto` say where a request was sent, for the links derived from requests when GUIDEPOST_PUBLIC_URL is unset; from any other peer these headers are ignored, so a client cannot point the links it is given elsewhere. Loopback only by default',
  }),
  GUIDEPOST_BULK_JOBS_PER_ACCOUNT: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 10,
    description: 'Imports and event exports an account may have in progress at once; one more is answered 429',
  }),
  GUIDEPOST_BODY_LIMIT_BYTES: Type.Integer({
    minimum: 1024,
    default: 20 * 1024 * 1024,
    description: 'Largest request body (bytes); a larger one is answered 413',
  }),
  GUIDEPOST_FILE_LIMIT_BYTES: Type.Integer({
    minimum: 1024,
    default: 200 * 1024 * 1024,
    description: 'Largest uploaded file (bytes); a larger one is answered 413',
  }),
  GUIDEPOST_REQUEST_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    maximum: 24 * 60 * 60 * 1000,
    default: 10 * 60 * 1000,
    description:
      'Time a request may take to arrive, headers and body (ms); a slower one is cut off with 408 (a 200 MB upload needs about 2.8 Mbit/s)',
  }),
  GUIDEPOST_SHUTDOWN_GRACE_MS: Type.Integer({
    minimum: 1_000,
    maximum: 10 * 60 * 1000,
    default: 25_000,
    description:
      "On SIGTERM or SIGINT the process stops within this time (ms): in-flight requests get 60% of it, then the workers, the bus and the databases stop; the exit code is 0, or 1 when the time ran out. Keep it below the orchestrator's kill timeout (Kubernetes `terminationGracePeriodSeconds`, 30 s by default)",
  }),
  GUIDEPOST_LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info', description: 'Least severe level written to the log (JSON lines on standard output); `silent` writes none' },
  ),
  GUIDEPOST_MIGRATE_ON_START: Type.Boolean({
    default: true,
    description:
      "Apply the service's PostgreSQL and ClickHouse migrations at start-up; set to false where a release step runs `migrate` instead (start-up then refuses a schema with pending migrations)",
  }),
  GUIDEPOST_KAFKA_BROKERS: Type.Optional(
    Type.String({
      pattern: '^[^,\\s]+:[0-9]+(,[^,\\s]+:[0-9]+)*$',
      description: 'Kafka bootstrap brokers, `host:port` separated by commas; the bus is in process when unset (standalone only)',
    }),
  ),
  GUIDEPOST_KAFKA_NAMESPACE: Type.Optional(
    Type.String({
      pattern: '^[a-z0-9][a-z0-9_-]{0,39}$',
      description:
        'Prefix of every topic name and consumer group, so that several installations (or test runs) can share one Kafka cluster',
    }),
  ),
  GUIDEPOST_KAFKA_TOPIC_PARTITIONS: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 6,
    description:
      'Partitions of the topics a service creates when they are missing: the most replicas of one consumer group that share work',
  }),
  GUIDEPOST_KAFKA_REPLICATION_FACTOR: Type.Integer({
    minimum: 1,
    maximum: 7,
    default: 1,
    description:
      'Replication factor of the topics a service creates (3 in production); they need all but one replica in sync to take a write (min.insync.replicas)',
  }),
  GUIDEPOST_KAFKA_BATCH_FETCH_MIN_BYTES: Type.Integer({
    minimum: 1,
    maximum: 10 * 1024 * 1024,
    default: 1024 * 1024,
    description:
      'Bytes a fetch of a batch consumer (the event sink) waits for before the broker answers, so that it is not woken by every produce request...',
  }),
  GUIDEPOST_KAFKA_BATCH_FETCH_MAX_WAIT_MS: Type.Integer({
    minimum: 0,
    maximum: 10_000,
    default: 150,
    description:
      '...or how long it waits at most (ms); keep it below `GUIDEPOST_EVENT_SINK_MAX_WAIT_MS`, which bounds how long an event waits to become queryable',
  }),
  GUIDEPOST_INTERNAL_TOKEN: Type.Optional(
    Type.String({
      minLength: 32,
      description:
        'Shared secret the gateway presents to the services and the services to each other (distributed shape); a service refuses any other caller',
    }),
  ),
  GUIDEPOST_CONTENT_SERVICE_URL: Type.Optional(
    Type.String({ pattern: '^https?://[^\\s]+[^/\\s]$', description: 'Base URL of the content service (gateway)' }),
  ),
  GUIDEPOST_SEGMENT_SERVICE_URL: Type.Optional(
    Type.String({ pattern: '^https?://[^\\s]+[^/\\s]$', description: 'Base URL of the segment service (gateway)' }),
  ),
  GUIDEPOST_PROFILE_SERVICE_URL: Type.Optional(
    Type.String({ pattern: '^https?://[^\\s]+[^/\\s]$', description: 'Base URL of the profile service (gateway, segment service)' }),
  ),
  GUIDEPOST_INGESTION_SERVICE_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s]+[^/\\s]$',
      description: 'Base URL of the ingestion service (gateway, segment and profile services)',
    }),
  ),
  GUIDEPOST_DEPENDENCY_TIMEOUT_MS: Type.Integer({
    minimum: 500,
    maximum: 120_000,
    default: 5_000,
    description:
      'Longest wait (ms) for one answer from PostgreSQL, Kafka, ClickHouse or S3 that says nothing (frozen, or cut off by a partition); the call then fails as the store being unavailable: a request is answered 503 with `Retry-After`, a worker tries again later. Imports, exports and analytics queries have budgets of their own',
  }),
  GUIDEPOST_GATEWAY_UPSTREAM_TIMEOUT_MS: Type.Integer({
    minimum: 1_000,
    maximum: 600_000,
    default: 60_000,
    description:
      'How long the gateway waits for a service to start answering, and for each further piece of its answer (ms); past it the client gets 504',
  }),
  GUIDEPOST_IDEMPOTENCY_KEY_TTL_SECONDS: Type.Integer({
    minimum: 60,
    maximum: 30 * 24 * 60 * 60,
    default: 24 * 60 * 60,
    description:
      'How long the gateway remembers an `Idempotency-Key` and the answer to its first request (seconds, from that request); a retry within it gets the same answer, a later one runs again; expired keys are deleted every 10 minutes',
  }),
  GUIDEPOST_MESSAGE_DEDUP_WINDOW_SECONDS: Type.Integer({
    minimum: 60 * 60,
    maximum: 365 * 24 * 60 * 60,
    default: 7 * 24 * 60 * 60,
    description:
      "How long each service remembers the messages it published and handled (seconds): a message redelivered within it is handled once, one redelivered later again; published outbox messages, handled message ids and replayed dead letters older than this are deleted. Keep it longer than the bus keeps messages (Kafka's retention, 7 days by default)",
  }),
  GUIDEPOST_MESSAGE_PRUNE_INTERVAL_MS: Type.Integer({
    minimum: 1_000,
    default: 600_000,
    description:
      'How often each service deletes published outbox messages, handled message ids and replayed dead letters past the deduplication window (ms)',
  }),
  GUIDEPOST_BLOB_SWEEP_INTERVAL_MS: Type.Integer({
    minimum: 1_000,
    default: 3_600_000,
    description:
      'How often export files whose one-week link has expired (plus an hour) and writes abandoned for a day are deleted from the blob store (ms); staged uploads go as soon as their import job ends',
  }),
  GUIDEPOST_S3_ENDPOINT: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s/]+/?$',
      description:
        'S3 endpoint (MinIO) of the blob store, e.g. http://127.0.0.1:9000; presigned links point at it, so clients must reach it; blobs are kept under the data folder when unset',
    }),
  ),
  GUIDEPOST_S3_ACCESS_KEY: Type.Optional(Type.String({ minLength: 3, description: 'S3 access key (required with GUIDEPOST_S3_ENDPOINT)' })),
  GUIDEPOST_S3_SECRET_KEY: Type.Optional(Type.String({ minLength: 8, description: 'S3 secret key (required with GUIDEPOST_S3_ENDPOINT)' })),
  GUIDEPOST_S3_BUCKET: Type.String({
    pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$',
    default: 'guidepost',
    description: 'Bucket of staged uploads and export files (created when missing)',
  }),
  GUIDEPOST_S3_REGION: Type.String({
    minLength: 1,
    default: 'us-east-1',
    description: 'Region of the bucket; also signs presigned links without a round trip',
  }),
  GUIDEPOST_S3_PART_SIZE_BYTES: Type.Integer({
    minimum: 5 * 1024 * 1024,
    maximum: 5 * 1024 * 1024 * 1024,
    default: 16 * 1024 * 1024,
    description: 'Part size of multipart uploads to S3 (bytes, 5 MiB or more): the memory one upload holds',
  }),
  GUIDEPOST_SMTP_URL: Type.Optional(
    Type.String({
      pattern: '^smtps?://',
      description: 'SMTP server for export notifications, e.g. smtp://user:pass@mail:587; mail is written to the log when unset',
    }),
  ),
  GUIDEPOST_MAIL_FROM: Type.String({
    minLength: 3,
    default: 'Guidepost <no-reply@guidepost.invalid>',
    description: 'Sender of notification mail',
  }),
  GUIDEPOST_TRACK_COMMIT_LINGER_MS: Type.Integer({
    minimum: 0,
    maximum: 1_000,
    default: 5,
    description:
      'How long a durable write of tracked events (a produce request to Kafka, an outbox transaction standalone) waits for more events to join it before it starts (ms): each write has a fixed cost, shared by the events it carries; 0 starts it at once, and events that arrive while one runs go into the next',
  }),
  GUIDEPOST_EVENT_SINK_MAX_ROWS: Type.Integer({
    minimum: 1,
    default: 50_000,
    description: 'The event sink inserts once it has gathered this many events...',
  }),
  GUIDEPOST_EVENT_SINK_MAX_WAIT_MS: Type.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 200,
    description: '...or once the oldest gathered event has waited this long (ms)',
  }),
  GUIDEPOST_ANALYTICS_MAX_ROWS: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    // The real API's clamp, which its clients expect (they rerun a clamped spec as an export).
    default: 1_000,
    description: 'Most rows `POST /analytics/query` answers; a larger result is clamped, with `X-Rows-Truncated: true`',
  }),
  GUIDEPOST_ANALYTICS_EXPORT_MAX_ROWS: Type.Integer({
    minimum: 1,
    maximum: 100_000_000,
    default: 1_000_000,
    description: 'Most rows an analytics export (`POST /analytics/exports`) writes; a larger result is clamped (`truncated` in its state)',
  }),
  GUIDEPOST_ANALYTICS_MAX_EXECUTION_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3_600,
    default: 10,
    description:
      'Time budget of one analytics query or export in the event store (ClickHouse `max_execution_time`, seconds, on the clock: a busy store takes longer); past it the request is answered 503 with `Retry-After` (an export is tried 3 times, then fails)',
  }),
  GUIDEPOST_ANALYTICS_MAX_MEMORY_BYTES: Type.Integer({
    minimum: 16 * 1024 * 1024,
    default: 1024 * 1024 * 1024,
    description:
      'Memory budget of one analytics query or export in the event store (ClickHouse `max_memory_usage`, bytes); past it the request is answered 400 (an export fails)',
  }),
  GUIDEPOST_ANALYTICS_CONCURRENT_QUERIES: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 2,
    description:
      'Analytics queries one account may run at once in each ingestion process (`X-Concurrency-Limit`); one more is answered 429 with `Retry-After`',
  }),
  GUIDEPOST_DEMO: Type.Boolean({
    default: false,
    description: 'Create a demo account with sample content at start-up, and a key for it whose secret is shown on the terminal only',
  }),
});

export type Environment = Static<typeof EnvironmentSchema>;
