import Ajv from 'ajv';
import { EnvironmentSchema, type Environment } from './config.schema';
import { AppConfig } from './app-config';
import { TrustedProxies } from './trusted-proxies';

/** Thrown at start-up when the environment does not satisfy the schema; lists every problem at once. */
export class ConfigurationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigurationError';
  }
}

const validate = new Ajv({ useDefaults: true, coerceTypes: true, allErrors: true }).compile<Environment>(EnvironmentSchema);

/**
 * Reads the known `GUIDEPOST_*` variables, applies defaults, coerces numbers and booleans and validates
 * them. Empty strings count as unset, so `VAR=` in a shell or a manifest means "use the default".
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const known = Object.keys(EnvironmentSchema.properties);
  const candidate: Record<string, unknown> = {};
  for (const name of known) {
    const value = env[name];
    if (value !== undefined && value !== '') candidate[name] = value;
  }
  if (!validate(candidate)) {
    const problems = (validate.errors ?? []).map((error) => {
      const variable = error.instancePath.replace(/^\//, '') || String(error.params['missingProperty'] ?? '');
      return `${variable}: ${error.message ?? 'is invalid'}`;
    });
    throw new ConfigurationError(problems);
  }
  const related = [...problemsWithin(candidate), ...problemsBetweenSettings(candidate)];
  if (related.length > 0) throw new ConfigurationError(related);
  return new AppConfig(candidate);
}

/** What the schema's patterns cannot judge. */
function problemsWithin(env: Environment): string[] {
  try {
    TrustedProxies.parse(env.GUIDEPOST_TRUSTED_PROXIES);
    return [];
  } catch (error) {
    return [`GUIDEPOST_TRUSTED_PROXIES: ${(error as Error).message}`];
  }
}

/** Settings that are valid alone but not together. */
function problemsBetweenSettings(env: Environment): string[] {
  const problems: string[] = [];
  if (env.GUIDEPOST_ADMIN_PORT !== undefined && env.GUIDEPOST_ADMIN_PORT === env.GUIDEPOST_PORT) {
    problems.push('GUIDEPOST_ADMIN_PORT: must differ from GUIDEPOST_PORT (the admin API gets a port of its own)');
  }
  if (env.GUIDEPOST_S3_ENDPOINT) {
    for (const name of ['GUIDEPOST_S3_ACCESS_KEY', 'GUIDEPOST_S3_SECRET_KEY'] as const) {
      if (!env[name]) problems.push(`${name}: is required with GUIDEPOST_S3_ENDPOINT`);
    }
  }
  // A certificate without its key (or the reverse) would serve neither HTTPS nor, silently, HTTP.
  if (env.GUIDEPOST_TLS_CERT_FILE && !env.GUIDEPOST_TLS_KEY_FILE)
    problems.push('GUIDEPOST_TLS_KEY_FILE: is required with GUIDEPOST_TLS_CERT_FILE');
  if (env.GUIDEPOST_TLS_KEY_FILE && !env.GUIDEPOST_TLS_CERT_FILE)
    problems.push('GUIDEPOST_TLS_CERT_FILE: is required with GUIDEPOST_TLS_KEY_FILE');
  return problems;
}
