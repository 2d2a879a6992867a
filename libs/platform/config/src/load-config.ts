import Ajv from 'ajv';
import { EnvironmentSchema, type Environment } from './config.schema';
import { AppConfig } from './app-config';

/** Thrown at start-up when the environment does not satisfy the schema; lists every problem at once. */
export class ConfigurationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigurationError';
  }
}

const validate = new Ajv({ useDefaults: true, coerceTypes: true, allErrors: true }).compile<Environment>(
  EnvironmentSchema,
);

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
  return new AppConfig(candidate);
}
