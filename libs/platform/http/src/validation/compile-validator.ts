import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { Static, TSchema } from '@sinclair/typebox';
import { DomainError } from '@guidepost/platform-errors';

/**
 * One ajv for every public schema. Whether unknown properties are allowed is each schema's own
 * `additionalProperties`, never a global switch; values are never coerced, so `"5"` is not a number.
 * `verbose` puts the failing schema on the error, so a union of literals can list its values.
 */
const ajv = addFormats(new Ajv({ allErrors: false, strict: false, coerceTypes: false, verbose: true }));

/** A schema compiles once even when several modules ask for it (ajv rejects a second `$id`). */
const compiled = new WeakMap<TSchema, (value: unknown) => unknown>();

/**
 * Compiles a TypeBox schema into a function that returns the value typed, or throws
 * `DomainError('invalid_request', '<field path>: <reason>')` naming the first field at fault,
 * e.g. `name: is required` or `property_names.2: must be string`.
 */
export function compileValidator<S extends TSchema>(schema: S): (value: unknown) => Static<S> {
  const existing = compiled.get(schema);
  if (existing) return existing;
  const validate = ajv.compile<Static<S>>(schema);
  const check = (value: unknown): Static<S> => {
    if (validate(value)) return value;
    throw new DomainError('invalid_request', describeFailure(validate.errors ?? []));
  };
  compiled.set(schema, check);
  return check;
}

function describeFailure(errors: readonly ErrorObject[]): string {
  // ajv lists the failures of each union branch before the union's own error; the union's is the one to show.
  const error = errors.find((candidate) => candidate.keyword === 'anyOf' || candidate.keyword === 'oneOf') ?? errors[0];
  if (!error) return 'body: is invalid';
  const path = pathOf(error.instancePath);
  switch (error.keyword) {
    case 'required':
      return `${join(path, String(error.params['missingProperty']))}: is required`;
    case 'additionalProperties':
      return `${join(path, String(error.params['additionalProperty']))}: is not a known field`;
    case 'minLength':
      return `${path || 'body'}: ${error.params['limit'] === 1 ? 'must not be empty' : error.message ?? 'is too short'}`;
    case 'enum':
      return `${path || 'body'}: must be one of ${listOf(error.params['allowedValues'])}`;
    case 'anyOf':
    case 'oneOf':
      return `${path || 'body'}: ${unionReason(error)}`;
    default:
      return `${path || 'body'}: ${error.message ?? 'is invalid'}`;
  }
}

/** A union of literals (TypeBox `Union([Literal(...)])`) reads as a list of allowed values. */
function unionReason(error: ErrorObject): string {
  const branches = Array.isArray(error.schema) ? (error.schema as unknown[]) : [];
  const constants = branches.map((branch) => (isRecord(branch) ? branch['const'] : undefined));
  if (constants.length > 0 && constants.every((value) => value !== undefined)) return `must be one of ${listOf(constants)}`;
  return 'does not match any of the allowed forms';
}

/** JSON Pointer `/property_names/2` -> `property_names.2`. */
function pathOf(instancePath: string): string {
  if (instancePath === '') return '';
  return instancePath
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function join(path: string, property: string): string {
  return path ? `${path}.${property}` : property;
}

function listOf(values: unknown): string {
  return Array.isArray(values) ? values.map((value) => JSON.stringify(value)).join(', ') : String(values);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
