import type { TSchema } from '@sinclair/typebox';

/**
 * The one rule for unknown fields in a request body (docs/api-contract.md#unknown-fields), read from
 * each object schema's `additionalProperties`, so that the OpenAPI document, which publishes the same
 * schemas, says what the server does:
 *
 * - not set: a fixed-shape object. Keys it does not name are dropped before validation, so they are
 *   neither refused nor passed on to be stored or echoed (a sync tool's `_sync_id`, the read-only
 *   `url` of a record sent back as it was read). JSON Schema allows such keys, as the server does.
 * - `true`, a schema, or `patternProperties`: a free-form object (profile properties, event
 *   attributes), whose keys are data and are kept.
 * - `false`: a closed object, for the few bodies where an ignored key would hide a mistake (the
 *   analytics query spec, admin settings, internal calls): the validator refuses the key, naming it.
 *
 * Known fields of every object, items of arrays and the branches of unions are searched for
 * fixed-shape objects in turn, at any depth. `$ref`s are not followed: the only ones in request
 * schemas name export conditions, which are lists of values.
 */
export type UnknownFieldsDropper = (value: unknown) => unknown;

type SchemaNode = Record<string, unknown>;

/**
 * The function that drops the unknown fields of every fixed-shape object of `schema` from a value,
 * or undefined when the schema has no fixed-shape object. It never changes the value given: it
 * answers a copy where something was dropped, and the value itself where nothing was.
 */
export function unknownFieldsDropperOf(schema: TSchema): UnknownFieldsDropper | undefined {
  return dropperOf(schema);
}

function dropperOf(node: unknown): UnknownFieldsDropper | undefined {
  if (!isRecord(node) || Array.isArray(node)) return undefined;
  return objectDropperOf(node) ?? arrayDropperOf(node) ?? unionDropperOf(node);
}

function objectDropperOf(node: SchemaNode): UnknownFieldsDropper | undefined {
  const properties = isRecord(node['properties']) ? node['properties'] : undefined;
  if (properties === undefined) return undefined;
  const fieldDroppers = new Map<string, UnknownFieldsDropper>();
  for (const [name, property] of Object.entries(properties)) {
    const dropper = dropperOf(property);
    if (dropper) fieldDroppers.set(name, dropper);
  }
  const fixedShape = node['additionalProperties'] === undefined && node['patternProperties'] === undefined;
  if (!fixedShape && fieldDroppers.size === 0) return undefined;
  const keeps = (name: string): boolean => !fixedShape || Object.hasOwn(properties, name);
  return (value) => {
    if (!isRecord(value) || Array.isArray(value)) return value;
    const given = Object.entries(value);
    const kept = given.filter(([name]) => keeps(name)).map(([name, field]) => [name, fieldDroppers.get(name)?.(field) ?? field] as const);
    const unchanged = kept.length === given.length && kept.every(([, field], index) => field === given[index][1]);
    // Built with fromEntries, which defines each key as an own property, even one named `__proto__`.
    return unchanged ? value : Object.fromEntries(kept);
  };
}

/** Arrays of objects (`steps`). Tuples (`items` as a list) are left alone: those of requests hold only values. */
function arrayDropperOf(node: SchemaNode): UnknownFieldsDropper | undefined {
  const every = Array.isArray(node['items']) ? undefined : dropperOf(node['items']);
  if (every === undefined) return undefined;
  return (value) => {
    if (!Array.isArray(value)) return value;
    const given = value as unknown[];
    const items = given.map(every);
    return items.every((item, index) => item === given[index]) ? given : items;
  };
}

/**
 * A union (`anyOf`, `oneOf`: a nullable object, a value or a list) drops by the one branch of the
 * value's JSON type. A union of two object shapes is left alone: which one the value means is for
 * the validator to say, and its keys then reach it as they came.
 */
function unionDropperOf(node: SchemaNode): UnknownFieldsDropper | undefined {
  const branches = node['anyOf'] ?? node['oneOf'];
  if (!Array.isArray(branches)) return undefined;
  const objectBranches = branches.filter((branch) => isRecord(branch) && branch['type'] === 'object');
  const arrayBranches = branches.filter((branch) => isRecord(branch) && branch['type'] === 'array');
  const forObjects = objectBranches.length === 1 ? dropperOf(objectBranches[0]) : undefined;
  const forArrays = arrayBranches.length === 1 ? dropperOf(arrayBranches[0]) : undefined;
  if (forObjects === undefined && forArrays === undefined) return undefined;
  return (value) => {
    const dropper = Array.isArray(value) ? forArrays : isRecord(value) ? forObjects : undefined;
    return dropper ? dropper(value) : value;
  };
}

function isRecord(value: unknown): value is SchemaNode {
  return typeof value === 'object' && value !== null;
}
