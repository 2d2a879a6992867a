import { resolve } from 'node:path';
import type { Environment } from './config.schema';

/** The validated, typed configuration that every module receives by injection. */
export class AppConfig {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** `GUIDEPOST_PUBLIC_URL` as given; see `publicUrl` for the effective base. */
  readonly explicitPublicUrl: string | undefined;
  readonly databaseUrl: string | undefined;
  /** ClickHouse over HTTP; unset means the in-process engine under `dataDir`. */
  readonly clickhouseUrl: string | undefined;
  readonly adminToken: string | undefined;
  readonly blobSigningSecret: string | undefined;
  readonly rateLimitPerSecond: number;
  readonly bodyLimitBytes: number;
  readonly fileLimitBytes: number;
  readonly logLevel: Environment['GUIDEPOST_LOG_LEVEL'];
  readonly demo: boolean;

  constructor(env: Environment) {
    this.host = env.GUIDEPOST_HOST;
    this.port = env.GUIDEPOST_PORT;
    this.dataDir = resolve(env.GUIDEPOST_DATA_DIR);
    this.explicitPublicUrl = env.GUIDEPOST_PUBLIC_URL;
    this.databaseUrl = env.GUIDEPOST_DATABASE_URL;
    this.clickhouseUrl = env.GUIDEPOST_CLICKHOUSE_URL;
    this.adminToken = env.GUIDEPOST_ADMIN_TOKEN;
    this.blobSigningSecret = env.GUIDEPOST_BLOB_SIGNING_SECRET;
    this.rateLimitPerSecond = env.GUIDEPOST_RATE_LIMIT_PER_SECOND;
    this.bodyLimitBytes = env.GUIDEPOST_BODY_LIMIT_BYTES;
    this.fileLimitBytes = env.GUIDEPOST_FILE_LIMIT_BYTES;
    this.logLevel = env.GUIDEPOST_LOG_LEVEL;
    this.demo = env.GUIDEPOST_DEMO;
  }

  /**
   * Absolute base URL of the public API (no trailing slash), used in `url`, `job_url` and download
   * links: `GUIDEPOST_PUBLIC_URL` when set (behind a proxy or ingress), else the address this process
   * listens on.
   */
  get publicUrl(): string {
    const host = this.host === '0.0.0.0' || this.host === '::' ? '127.0.0.1' : this.host;
    return this.explicitPublicUrl ?? `http://${host}:${this.port}`;
  }

  /** A copy with some settings replaced; used by hosts that fill in generated values (admin token, secrets). */
  with(overrides: Partial<Pick<AppConfig, 'adminToken' | 'blobSigningSecret' | 'databaseUrl' | 'port'>>): AppConfig {
    return Object.assign(Object.create(AppConfig.prototype) as AppConfig, this, overrides);
  }
}
