import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { Static, TSchema } from '@sinclair/typebox';
import { type FieldFailure, InvalidField } from '@guidepost/platform-errors';
import { unknownFieldsDropperOf } from './unknown-fields';

/**
 * One ajv for every public schema. What happens to unknown properties is each schema's own
 * `additionalProperties`, read by `unknownFieldsDropperOf` (dropped before validation when unset,
 * kept when allowed, refused when `false`); values are never coerced, so `"5"` is not a number.
 * `verbose` puts the failing schema on the error, so a union of literals can list its values.
 */
const ajv = addFormats(new Ajv({ allErrors: false, strict: false, coerceTypes: false, verbose: true }));

/** A value checked against a schema: the value typed, or the first field at fault. */
export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly failure: FieldFailure };

interface Compiled {
  readonly check: (value: unknown) => Checked<unknown>;
  readonly validate: (value: unknown) => unknown;
}

/** A schema compiles once even when several modules ask for it (ajv rejects a second `$id`). */
const compiled = new WeakMap<TSchema, Compiled>();

/**
 * Compiles a TypeBox schema into a function that says whether a value matches it: the value typed
 * (without the unknown fields of its fixed-shape objects: see `unknownFieldsDropperOf`), or
 * a `FieldFailure` naming the first field at fault, e.g. `{ field: 'name', reason: 'is required' }` or
 * `{ field: 'property_names.2', reason: 'must be string' }` (field null when the value as a whole is).
 * For callers that collect failures (an import's rows) rather than refuse a request.
 */
export function compileCheck<S extends TSchema>(schema: S): (value: unknown) => Checked<Static<S>> {
  return compiledOf(schema).check;
}

/**
 * Compiles a TypeBox schema into a function that returns the value typed (without the unknown fields
 * of its fixed-shape objects), or throws `InvalidField` (an `invalid_request` whose detail reads
 * `<field path>: <reason>`) naming the first field at fault.
 */
export function compileValidator<S extends TSchema>(schema: S): (value: unknown) => Static<S> {
  return compiledOf(schema).validate;
}

function compiledOf(schema: TSchema): Compiled {
  const existing = compiled.get(schema);
  if (existing) return existing;
  const matches = ajv.compile(schema);
  const dropUnknownFields = unknownFieldsDropperOf(schema) ?? ((value: unknown) => value);
  const check = (given: unknown): Checked<unknown> => {
    const value = dropUnknownFields(given);
    return matches(value) ? { ok: true, value } : { ok: false, failure: failureOf(matches.errors ?? []) };
  };
  const validate = (value: unknown): unknown => {
    const checked = check(value);
    if (checked.ok) return checked.value;
    throw new InvalidField(checked.failure);
  };
  const both = { check, validate };
  compiled.set(schema, both);
  return both;
}

function failureOf(errors: readonly ErrorObject[]): FieldFailure {
  // ajv lists the failures of each union branch before the union's own error; the union's is the one to
  // show, unless one branch alone has the value's type: what is wrong is said there.
  const union = errors.find((candidate) => candidate.keyword === 'anyOf' || candidate.keyword === 'oneOf');
  const branch = union === undefined ? undefined : errorsOfTheBranchOfItsType(errors, union);
  if (branch !== undefined) return failureOf(branch);
  const error = union ?? errors[0];
  if (!error) return { field: null, reason: 'is invalid' };
  const path = pathOf(error.instancePath);
  const field = path === '' ? null : path;
  switch (error.keyword) {
    case 'required':
      return { field: join(path, String(error.params['missingProperty'])), reason: 'is required' };
    case 'additionalProperties':
      return { field: join(path, String(error.params['additionalProperty'])), reason: 'is not a known field' };
    case 'minLength':
      return { field, reason: error.params['limit'] === 1 ? 'must not be empty' : (error.message ?? 'is too short') };
    case 'enum':
      return { field, reason: `must be one of ${listOf(error.params['allowedValues'])}` };
    case 'anyOf':
    case 'oneOf':
      return { field, reason: unionReason(error) };
    default:
      return { field, reason: error.message ?? 'is invalid' };
  }
}

/**
 * The failures of the one branch of a failed union whose type the value has, e.g. the list branch of
 * "an address or a list of addresses" for a list that is too long; undefined when no branch or several
 * have it (a union of literals), where only the union as a whole can be named.
 */
function errorsOfTheBranchOfItsType(errors: readonly ErrorObject[], union: ErrorObject): ErrorObject[] | undefined {
  const prefix = `${union.schemaPath}/`;
  const branches = new Map<string, ErrorObject[]>();
  for (const error of errors) {
    if (!error.schemaPath.startsWith(prefix)) continue;
    const branch = error.schemaPath.slice(prefix.length).split('/', 1)[0];
    branches.set(branch, [...(branches.get(branch) ?? []), error]);
  }
  const ofItsType = [...branches.values()].filter(
    (failures) => !failures.some((failure) => failure.keyword === 'type' && failure.instancePath === union.instancePath),
  );
  return ofItsType.length === 1 ? ofItsType[0] : undefined;
}

/**
 * A union of literals (TypeBox `Union([Literal(...)])`) reads as a list of allowed values; a union of
 * required fields (`anyOf: [{ required: ['name'] }, { required: ['description'] }]`) as the fields
 * one of which must be given.
 */
function unionReason(error: ErrorObject): string {
  const branches = Array.isArray(error.schema) ? (error.schema as unknown[]) : [];
  const constants = branches.map((branch) => (isRecord(branch) ? branch['const'] : undefined));
  if (constants.length > 0 && constants.every((value) => value !== undefined)) return `must be one of ${listOf(constants)}`;
  const required = branches.map((branch) => (isRecord(branch) && Object.keys(branch).length === 1 ? branch['required'] : undefined));
  if (required.length > 0 && required.every((names) => Array.isArray(names) && names.length === 1))
    return `must have one of the fields ${listOf(required.flat())}`;
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
