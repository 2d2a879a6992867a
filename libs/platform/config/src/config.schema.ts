import { Type, type Static } from '@sinclair/typebox';

/**
 * Every setting Guidepost reads from its environment, in one schema. Each has a default that works on
 * a developer machine, so the standalone shape starts with no variables at all.
 */
export const EnvironmentSchema = Type.Object({
  GUIDEPOST_HOST: Type.String({ default: '127.0.0.1', description: 'Interface the HTTP server binds to' }),
  GUIDEPOST_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 8080, description: 'HTTP port' }),
  GUIDEPOST_DATA_DIR: Type.String({ default: '.guidepost', description: 'Folder for embedded PostgreSQL, blobs and generated secrets' }),
  GUIDEPOST_PUBLIC_URL: Type.Optional(
    Type.String({ pattern: '^https?://[^\\s]+[^/\\s]$', description: 'Absolute base URL used in `url` and `job_url` fields; derived from the request when unset' }),
  ),
  GUIDEPOST_DATABASE_URL: Type.Optional(
    Type.String({ pattern: '^postgres(ql)?://', description: 'PostgreSQL connection string; the standalone shape starts an embedded server when unset' }),
  ),
  GUIDEPOST_CLICKHOUSE_URL: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description:
        'ClickHouse HTTP endpoint of the event store (credentials in the URL, database in the path); the standalone shape runs the ClickHouse engine in process (chdb) under the data folder when unset',
    }),
  ),
  GUIDEPOST_ADMIN_TOKEN: Type.Optional(
    Type.String({ minLength: 16, description: 'Bearer token of the admin API; the standalone shape generates one when unset' }),
  ),
  GUIDEPOST_BLOB_SIGNING_SECRET: Type.Optional(
    Type.String({ minLength: 32, description: 'Secret that signs blob download links; generated and kept in the data folder when unset' }),
  ),
  GUIDEPOST_RATE_LIMIT_PER_SECOND: Type.Integer({ minimum: 1, default: 60, description: 'Requests per second allowed per account' }),
  GUIDEPOST_BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 20 * 1024 * 1024, description: 'Largest request body (bytes)' }),
  GUIDEPOST_FILE_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 200 * 1024 * 1024, description: 'Largest uploaded file (bytes)' }),
  GUIDEPOST_LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info' },
  ),
  GUIDEPOST_DEMO: Type.Boolean({ default: false, description: 'Create a demo account with sample content at start-up and print its credentials' }),
});

export type Environment = Static<typeof EnvironmentSchema>;
