import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where the real servers of the distributed shape answer (what `scripts/infra/start.sh` writes). */
export interface Infrastructure {
  readonly kafkaBrokers: string;
  readonly databaseUrl: string;
  readonly clickhouseUrl: string;
  readonly s3Endpoint: string;
  readonly s3AccessKey: string;
  readonly s3SecretKey: string;
}

const VARIABLES: Record<keyof Infrastructure, string> = {
  kafkaBrokers: 'GUIDEPOST_KAFKA_BROKERS',
  databaseUrl: 'GUIDEPOST_DATABASE_URL',
  clickhouseUrl: 'GUIDEPOST_CLICKHOUSE_URL',
  s3Endpoint: 'GUIDEPOST_S3_ENDPOINT',
  s3AccessKey: 'GUIDEPOST_S3_ACCESS_KEY',
  s3SecretKey: 'GUIDEPOST_S3_SECRET_KEY',
};

/** The folder where `scripts/infra` keeps its servers and `infra.env`. */
export function infrastructureDir(env: NodeJS.ProcessEnv = process.env): string {
  return env['GUIDEPOST_INFRA_DIR'] ?? join(homedir(), '.cache', 'guidepost', 'run');
}

/**
 * The servers' endpoints: from the environment when it names them all, else from the `infra.env`
 * that `scripts/infra/start.sh` wrote. Fails with the command to run when neither has them.
 */
export function loadInfrastructure(env: NodeJS.ProcessEnv = process.env): Infrastructure {
  const fromFile = readEnvFile(join(infrastructureDir(env), 'infra.env'));
  const values = { ...fromFile, ...definedOnly(env) };
  const missing = Object.values(VARIABLES).filter((name) => !values[name]);
  if (missing.length > 0) {
    throw new Error(
      `${missing.join(', ')} unknown: start the servers with scripts/infra/start.sh (it writes ${infrastructureDir(env)}/infra.env)`,
    );
  }
  return Object.fromEntries(Object.entries(VARIABLES).map(([field, name]) => [field, values[name]])) as unknown as Infrastructure;
}

/** `env` without the servers' endpoints, so that a process started with it runs on its embedded stores (the standalone shape). */
export function withoutInfrastructure(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const endpoints = new Set(Object.values(VARIABLES));
  return Object.fromEntries(Object.entries(env).filter(([name]) => !endpoints.has(name)));
}

/** Reads `export NAME=value` lines (values may be single- or double-quoted); a missing file is empty. */
function readEnvFile(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return {};
  }
  const values: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^\s*(?:export\s+)?([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match) values[match[1]] = match[2].trim().replace(/^(['"])(.*)\1$/, '$2');
  }
  return values;
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => Boolean(entry[1])));
}
