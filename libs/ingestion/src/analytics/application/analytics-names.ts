import { ANALYTICS_ATTRIBUTE_PREFIX, textProblem } from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';

/** The key of an `attributes.<key>` name (a 400 at `path` for a key no store can hold); undefined for any other name. */
export function attributeKeyOf(name: string, path: string): string | undefined {
  if (!name.startsWith(ANALYTICS_ATTRIBUTE_PREFIX) || name.length === ANALYTICS_ATTRIBUTE_PREFIX.length) return undefined;
  const problem = textProblem(name);
  if (problem) throw invalid(path, problem);
  return name.slice(ANALYTICS_ATTRIBUTE_PREFIX.length);
}

export function listOf(values: readonly string[]): string {
  return values.map((value) => JSON.stringify(value)).join(', ');
}

/** A 400 whose detail starts with the path of the field at fault: `metrics[1]: ...`. */
export function invalid(path: string, reason: string): DomainError {
  return new DomainError('invalid_request', `${path}: ${reason}`);
}
