import type { TSchema } from '@sinclair/typebox';

export type JsonObject = Record<string, unknown>;

const COMPONENT_PREFIX = '#/components/schemas/';
/** Patterns that match any property name (TypeBox writes `Type.Record(Type.String(), ...)` with the second). */
const ANY_PROPERTY_NAME = ['^.*$', '^(.*)$'];

/** `{ $ref }` to the component a named schema (one with `$id`) is published under. */
export function ref(schema: TSchema): JsonObject {
  const id = schema.$id;
  if (typeof id !== 'string') throw new Error('Only schemas with an $id are published as components');
  return { $ref: `${COMPONENT_PREFIX}${id}` };
}

/**
 * Turns the TypeBox schemas (the ones that validate requests) into `components.schemas` of an OpenAPI
 * 3.1 document: each named schema under its `$id`, nested named schemas hoisted to their own
 * component and referenced, and the draft-07 forms the validators use rewritten as JSON Schema
 * 2020-12 (tuples as `prefixItems`, records as `additionalProperties`).
 */
export class SchemaComponents {
  private readonly schemas: Record<string, JsonObject> = {};

  add(...schemas: TSchema[]): this {
    for (const schema of schemas) this.publish(schema);
    return this;
  }

  /** An inline schema in the document's form (its named parts become references). */
  inline(schema: TSchema | JsonObject): JsonObject {
    return this.convert(schema, true);
  }

  all(): Record<string, JsonObject> {
    return Object.fromEntries(Object.entries(this.schemas).sort(([a], [b]) => a.localeCompare(b)));
  }

  private publish(schema: JsonObject): JsonObject {
    const id = schema['$id'];
    if (typeof id !== 'string') throw new Error('A component schema needs an $id');
    if (!(id in this.schemas)) {
      // Reserved first, so a schema that refers to itself finds its own name.
      this.schemas[id] = {};
      this.schemas[id] = this.convert(schema, true);
    }
    return { $ref: `${COMPONENT_PREFIX}${id}` };
  }

  private convert(node: unknown, isRoot = false): JsonObject {
    if (!isObject(node)) throw new Error(`Not a schema: ${JSON.stringify(node)}`);
    if (!isRoot && typeof node['$id'] === 'string') return this.publish(node);
    const converted: JsonObject = {};
    // Object.keys leaves out TypeBox's symbol keys (Kind, Optional), which are not JSON Schema.
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (key === '$id') continue;
      converted[key] = this.convertKeyword(key, value);
    }
    return rewriteDraft07Forms(converted);
  }

  private convertKeyword(key: string, value: unknown): unknown {
    switch (key) {
      case '$ref':
        return typeof value === 'string' && !value.startsWith('#') ? `${COMPONENT_PREFIX}${value}` : value;
      case 'properties':
      case 'patternProperties':
      case '$defs':
        return mapValues(value, (child) => this.convert(child));
      case 'items':
      case 'anyOf':
      case 'allOf':
      case 'oneOf':
      case 'prefixItems':
        return Array.isArray(value) ? value.map((child) => this.convert(child)) : this.convert(value);
      case 'additionalProperties':
      case 'additionalItems':
      case 'not':
      case 'contains':
        return typeof value === 'boolean' ? value : this.convert(value);
      default:
        return value;
    }
  }
}

/** Draft-07 tuple and TypeBox record forms, in the words of JSON Schema 2020-12. */
function rewriteDraft07Forms(schema: JsonObject): JsonObject {
  const result = { ...schema };
  if (Array.isArray(result['items'])) {
    result['prefixItems'] = result['items'];
    if ('additionalItems' in result) result['items'] = result['additionalItems'];
    else delete result['items'];
    delete result['additionalItems'];
  }
  const patterns = result['patternProperties'];
  const patternKeys = isObject(patterns) ? Object.keys(patterns) : [];
  if (isObject(patterns) && patternKeys.length === 1 && ANY_PROPERTY_NAME.includes(patternKeys[0])) {
    result['additionalProperties'] = patterns[patternKeys[0]];
    delete result['patternProperties'];
  }
  return result;
}

function mapValues(value: unknown, map: (child: unknown) => unknown): JsonObject {
  if (!isObject(value)) throw new Error(`Expected an object of schemas: ${JSON.stringify(value)}`);
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, map(child)]));
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
