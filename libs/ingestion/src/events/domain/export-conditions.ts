import {
  COMPARISON_OPERATORS,
  CONJUNCTIONS,
  EVENT_COLUMN_FIELDS,
  MAX_CONDITION_DEPTH,
  MAX_CONDITION_VALUES,
  MAX_CONDITIONS,
  MAX_CONDITIONS_TEXT_LENGTH,
  MEMBERSHIP_OPERATORS,
  NULL_OPERATORS,
  textProblem,
} from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';
import { dateTime64Param, instantOf } from './instant';
import { isStorableInstant } from './storable-event';

/** An attribute's key, or the keys leading to it through nested objects (`['_identity', '_sessionId']`). */
export type AttributePath = readonly string[];

/**
 * What a condition's field compares: a text column of the event, its timestamp, an attribute read
 * from the first of `keys` the event has (several when a field is sent under more than one name), or
 * the text of an SQL expression over the event's columns (`name` says it in an error).
 */
export type ConditionField =
  | { readonly kind: 'column'; readonly column: (typeof EVENT_COLUMN_FIELDS)[number] }
  | { readonly kind: 'attribute'; readonly keys: readonly AttributePath[]; readonly stored?: StoredAttributeText }
  | { readonly kind: 'text'; readonly name: string; readonly sql: string };

/**
 * A column the insert fills with the text of the first of an attribute field's keys an event has (a
 * string's value, another value's JSON text; NULL for none or JSON null), and `unread` where it could
 * not read the attributes. An event equal to a value holds the value's text there, so a condition
 * that every match must meet (`==` or `in` of strings, not under `or`) first keeps the events whose
 * column holds one of them (or `unread`): a column the store reads alone, before it parses any
 * attributes (the flow funnel over 10 M events: 3.1 s parsing every event's attributes).
 */
export interface StoredAttributeText {
  readonly column: string;
  readonly unread: string;
}

/** Resolves a condition's field (at `path`, for a 400 naming it). */
export type FieldResolver = (field: string, path: string) => ConditionField;

/** The export grammar: the event's columns by name, and any other name the attribute of that name. */
function exportField(field: string): ConditionField {
  return (EVENT_COLUMN_FIELDS as readonly string[]).includes(field)
    ? { kind: 'column', column: field as (typeof EVENT_COLUMN_FIELDS)[number] }
    : { kind: 'attribute', keys: [[field]] };
}

/** An export's conditions as one ClickHouse boolean expression over the `events` table. */
export interface CompiledConditions {
  /** `1` when there is no condition. Values appear only as `{pN:Type}` placeholders. */
  readonly sql: string;
  /** The placeholders' values, named `p0`, `p1`, ... */
  readonly params: Readonly<Record<string, string | string[]>>;
}

const OPERATORS: readonly string[] = [...COMPARISON_OPERATORS, ...MEMBERSHIP_OPERATORS, ...NULL_OPERATORS];
const SHAPES = 'a condition is [field, operator, value], [field, "is null" | "is not null"] or [conjunction, condition, ...]';
const TIMESTAMP = `DateTime64(3, 'UTC')`;

type Scalar = string | number | boolean;
/** A compared value and where the request holds it, to name it in an error. */
interface Compared {
  readonly value: Scalar;
  readonly path: string;
}

/**
 * Compiles export conditions (docs/api-contract.md#exports) to SQL, validating them on the way: the
 * export endpoint calls this before it answers, so anything it cannot compile is a 400 whose detail
 * names the condition by its position (`conditions[1][2]: ...`). What it compiles the worker can run:
 * text the outbox (PostgreSQL `jsonb`) cannot carry (NUL, a lone surrogate) and like patterns
 * ClickHouse refuses (a trailing lone backslash) are refused here, and so is a request over the limits
 * (`MAX_CONDITIONS`, `MAX_CONDITION_DEPTH`, `MAX_CONDITION_VALUES`, `MAX_CONDITIONS_TEXT_LENGTH`) as
 * soon as it crosses one, so a huge request costs no more than the limits.
 *
 * `fieldOf` says what each field compares; by default (the export grammar) `name`, `user_id`,
 * `group_id` and `timestamp` are the event's columns and any other field is the attribute of that name. An attribute equals a value of the same JSON type only (`1` matches the
 * number 1, `"1"` the string). The like family matches an attribute's text (a string as is, any
 * other value as its JSON text) and needs the attribute present. `is null` means absent or JSON
 * null (for `user_id` and `group_id`: an event without one). `!=`, `not in` and `not like` are the
 * exact negations of `==`, `in` and `like`, so they also match events without the attribute.
 */
export function compileExportConditions(conditions: readonly unknown[], fieldOf: FieldResolver = exportField): CompiledConditions {
  const compiler = new ConditionCompiler(fieldOf);
  const parts = conditions.map((condition, index) => compiler.condition(condition, `conditions[${index}]`, 1, true));
  if (parts.length === 0) return { sql: '1', params: compiler.params };
  const predicate = asOnePredicate(parts.map((part) => `(${part})`).join(' AND '));
  return { sql: [...compiler.narrowings, predicate].join(' AND '), params: compiler.params };
}

/**
 * The conditions as one predicate to ClickHouse's planner (`identity` is the function it does not
 * look into): it analyses each conjunct of a filter against the whole filter, which for 999
 * conditions took over 640 MiB (the standalone engine's memory) before reading a row. The account,
 * the window and the received time stay outside, where they select the key range and the months.
 */
function asOnePredicate(sql: string): string {
  return `identity(${sql})`;
}

class ConditionCompiler {
  readonly params: Record<string, string | string[]> = {};
  /** What every match meets on stored columns (`StoredAttributeText`), outside the one predicate, where the planner reads them first. */
  readonly narrowings: string[] = [];

  constructor(private readonly fieldOf: FieldResolver) {}

  /** Each placeholder by its type and value. */
  private readonly placeholders = new Map<string, string>();
  /** The alias of each expression named once (`aliased`). */
  private readonly aliases = new Map<string, string>();
  private comparisons = 0;
  private comparedValues = 0;
  private textLength = 0;

  /** `required`: every match meets this condition (it is not under an `or`). */
  condition(condition: unknown, path: string, depth: number, required: boolean): string {
    if (!Array.isArray(condition) || condition.length < 2) throw invalid(path, SHAPES);
    const [head, ...rest] = condition as unknown[];
    if (head === 'and' || head === 'or') return this.conjunction(head, rest, path, depth, required && head === 'and');
    if (typeof head !== 'string' || head === '') throw invalid(`${path}[0]`, 'the field must be a non-empty string');
    if (rest.every(Array.isArray)) {
      throw invalid(`${path}[0]`, `conjunction ${JSON.stringify(head)} is not supported; use one of ${listOf(CONJUNCTIONS)}`);
    }
    this.comparisons += 1;
    if (this.comparisons > MAX_CONDITIONS) throw invalid(path, `the request has more than ${MAX_CONDITIONS} conditions in all`);
    this.countText(head, `${path}[0]`);
    return this.comparison(head, rest, path, required);
  }

  private conjunction(conjunction: 'and' | 'or', conditions: unknown[], path: string, depth: number, required: boolean): string {
    if (depth > MAX_CONDITION_DEPTH) throw invalid(path, `conjunctions nest more than ${MAX_CONDITION_DEPTH} levels deep`);
    const parts = conditions.map((condition, index) => this.condition(condition, `${path}[${index + 1}]`, depth + 1, required));
    return parts.map((part) => `(${part})`).join(conjunction === 'and' ? ' AND ' : ' OR ');
  }

  private comparison(field: string, [operator, ...values]: unknown[], path: string, required: boolean): string {
    if (typeof operator !== 'string' || !OPERATORS.includes(operator)) {
      throw invalid(`${path}[1]`, `operator ${JSON.stringify(operator)} is not supported; use one of ${listOf(OPERATORS)}`);
    }
    const compared = this.fieldOf(field, `${path}[0]`);
    const target = targetOf(compared, this);
    if (operator === 'is null' || operator === 'is not null') {
      if (values.length > 0) throw invalid(path, `operator "${operator}" takes no value: [field, "${operator}"]`);
      const isNull = target.isNull();
      return operator === 'is null' ? isNull : `NOT (${isNull})`;
    }
    if (values.length !== 1) throw invalid(path, `operator "${operator}" takes one value: [field, "${operator}", value]`);
    const valuePath = `${path}[2]`;
    if (operator === 'in' || operator === 'not in' || operator === '==' || operator === '!=') {
      const membership = operator === 'in' || operator === 'not in';
      const listed = membership ? this.valueList(operator, values[0], valuePath) : [this.scalar(values[0], valuePath)];
      const isIn = target.isIn(listed);
      if (operator === 'in' || operator === '==') {
        if (required && compared.kind === 'attribute' && compared.stored) this.narrowStored(compared.stored, listed);
        return isIn;
      }
      return `NOT (${isIn})`;
    }
    const pattern = values[0];
    if (typeof pattern !== 'string') throw invalid(valuePath, `operator "${operator}" takes a text pattern (% and _ are wildcards)`);
    this.countValue(pattern, valuePath);
    if (endsWithLoneBackslash(pattern)) {
      throw invalid(
        valuePath,
        'the pattern ends with a lone backslash, which escapes nothing: write \\\\ for a backslash (\\% and \\_ for % and _)',
      );
    }
    const like = operator.endsWith('ilike') ? 'ILIKE' : 'LIKE';
    const matches = target.matches(like, this.param('String', pattern), `${path}[1]`);
    return operator.startsWith('not ') ? `NOT (${matches})` : matches;
  }

  /**
   * Keeps the events whose stored text is one of the values, or unread. Strings only: the column holds
   * another value as the store renders its JSON, which the text of the request need not match.
   */
  private narrowStored({ column, unread }: StoredAttributeText, values: readonly Compared[]): void {
    const texts = values.flatMap(({ value }) => (typeof value === 'string' ? [value] : []));
    if (texts.length < values.length) return;
    this.narrowings.push(`(${column} IN ${this.param('Array(String)', texts)} OR ${column} = ${unread})`);
  }

  private valueList(operator: string, value: unknown, path: string): Compared[] {
    if (!Array.isArray(value) || value.length === 0) {
      throw invalid(path, `operator "${operator}" takes a non-empty array of strings, numbers or booleans`);
    }
    return value.map((item, index) => this.scalar(item, `${path}[${index}]`));
  }

  private scalar(value: unknown, path: string): Compared {
    if (typeof value !== 'string' && typeof value !== 'boolean' && !(typeof value === 'number' && Number.isFinite(value))) {
      throw invalid(path, 'the value must be a string, number or boolean');
    }
    this.countValue(value, path);
    return { value, path };
  }

  private countValue(value: string | number | boolean, path: string): void {
    this.comparedValues += 1;
    if (this.comparedValues > MAX_CONDITION_VALUES)
      throw invalid(path, `the conditions compare more than ${MAX_CONDITION_VALUES} values in all`);
    this.countText(String(value), path);
  }

  /** Field names and values, refused when they hold text the outbox cannot carry, and measured against the limit. */
  private countText(text: string, path: string): void {
    const problem = textProblem(text);
    if (problem) throw invalid(path, problem);
    this.textLength += text.length;
    if (this.textLength > MAX_CONDITIONS_TEXT_LENGTH) {
      throw invalid(path, `the field names and values of the conditions are longer than ${MAX_CONDITIONS_TEXT_LENGTH} characters in all`);
    }
  }

  /**
   * An attribute's value as JSON text (`"pro"`, `3`, `null`, `{"a":1}`; empty when the event lacks it),
   * from the `attribute_values` map (event-store migration 5), which ClickHouse computes once per row
   * whatever the number of conditions: a JSON function per condition parsed the attributes once per
   * condition. Each key's value is computed once and named by an alias (`aliased`). A nested key is
   * read from its top-level object's JSON text.
   */
  attributeJson(keys: readonly AttributePath[]): string {
    const [first, ...others] = keys.map(([top, ...nested]) => {
      const value = `attribute_values[${this.param('String', top)}]`;
      return nested.length === 0 ? value : `JSONExtractRaw(${value}, ${nested.map((key) => this.param('String', key)).join(', ')})`;
    });
    // The first key the event has: a key it lacks reads as empty.
    return this.aliased(others.reduce((json, next) => `if(${json} != '', ${json}, ${next})`, first));
  }

  /** An attribute's text, as the like family reads it: a string's value unescaped, any other value's JSON text. */
  attributeText(keys: readonly AttributePath[]): string {
    const json = this.attributeJson(keys);
    return this.aliased(`if(startsWith(${json}, '"'), JSONExtractString(${json}), ${json})`);
  }

  /**
   * The expression, defined under an alias where it first appears and named by the alias after
   * (ClickHouse resolves an alias anywhere in its query): an expression repeated in many conditions
   * is then written, bound to its placeholders and analysed once. 999 conditions on attributes took
   * 13 s to bind and plan as separate lookups, 3 s as aliases.
   */
  private aliased(expression: string): string {
    const known = this.aliases.get(expression);
    if (known !== undefined) return known;
    const alias = `condition_value_${this.aliases.size}`;
    this.aliases.set(expression, alias);
    return `(${expression} AS ${alias})`;
  }

  /**
   * A placeholder holding the value; values never enter the SQL text. A value met again (the same
   * attribute key in many conditions) reuses its placeholder: each is work for the store to bind.
   */
  param(type: string, value: string | string[]): string {
    const identity = JSON.stringify([type, value]);
    let placeholder = this.placeholders.get(identity);
    if (placeholder === undefined) {
      const name = `p${this.placeholders.size}`;
      this.params[name] = value;
      placeholder = `{${name}:${type}}`;
      this.placeholders.set(identity, placeholder);
    }
    return placeholder;
  }
}

/** What a field compares: a text column, the timestamp, or an attribute. */
interface Target {
  isNull(): string;
  isIn(values: readonly Compared[]): string;
  matches(like: 'LIKE' | 'ILIKE', pattern: string, operatorPath: string): string;
}

function targetOf(field: ConditionField, compiler: ConditionCompiler): Target {
  if (field.kind === 'attribute') return attribute(field.keys, compiler);
  if (field.kind === 'text') return textColumn(field.name, compiler, `(${field.sql})`);
  return field.column === 'timestamp' ? timestampColumn(compiler) : textColumn(field.column, compiler);
}

/**
 * `name`, `user_id`, `group_id` (or the text `sql` computes): text, empty for events without one
 * (`name` is never). A number compares as its decimal text.
 */
function textColumn(column: string, compiler: ConditionCompiler, sql = column): Target {
  return {
    isNull: () => (column === 'name' ? '0' : `${sql} = ''`),
    isIn: (values) => {
      const texts = values.map(({ value, path }) => {
        if (typeof value === 'boolean') throw invalid(path, `field "${column}" holds text; compare it with a string`);
        return String(value);
      });
      return `${sql} IN ${compiler.param('Array(String)', texts)}`;
    },
    matches: (like, pattern) => `${sql} ${like} ${pattern}`,
  };
}

function timestampColumn(compiler: ConditionCompiler): Target {
  return {
    isNull: () => '0',
    isIn: (values) => {
      const instants = values.map(({ value, path }) => {
        const instant = instantOf(value);
        if (!instant) throw invalid(path, 'field "timestamp" takes ISO 8601 date-times with Z or an offset, or milliseconds since 1970');
        // The store misreads some instants outside its range (year 0000 as this year); no event is there anyway.
        if (!isStorableInstant(instant))
          throw invalid(path, 'field "timestamp" takes instants in the years 1900 to 2299, the range the event store holds');
        return dateTime64Param(instant);
      });
      return `timestamp IN ${compiler.param(`Array(${TIMESTAMP})`, instants)}`;
    },
    matches: (_like, _pattern, operatorPath) => {
      throw invalid(operatorPath, 'field "timestamp" takes ==, !=, in, not in, is null or is not null; the like family compares text');
    },
  };
}

/**
 * An attribute, read from the event's attributes parsed once per row (`attributeValue`).
 * Equality compares ClickHouse's own rendering of both JSON values (`JSONExtractArrayRaw` renders the
 * compared values as the map renders the attributes), so the JSON type counts and equal values always
 * render alike. The like family reads a string's value (unescaped from its JSON text alone) and any
 * other value's JSON text.
 */
function attribute(keys: readonly AttributePath[], compiler: ConditionCompiler): Target {
  const isNull = () => `${compiler.attributeJson(keys)} IN ('', 'null')`;
  return {
    isNull,
    isIn: (values) =>
      `has(JSONExtractArrayRaw(${compiler.param('String', JSON.stringify(values.map(({ value }) => value)))}), ${compiler.attributeJson(keys)})`,
    matches: (like, pattern) => `NOT (${isNull()}) AND ${compiler.attributeText(keys)} ${like} ${pattern}`,
  };
}

/**
 * Whether the pattern's last backslash escapes nothing: in the like family a backslash escapes the
 * next character (`\\%`, `\\_`, `\\\\`), and ClickHouse refuses a pattern that ends in an odd run of them.
 */
function endsWithLoneBackslash(pattern: string): boolean {
  let backslashes = 0;
  while (pattern[pattern.length - 1 - backslashes] === '\\') backslashes += 1;
  return backslashes % 2 === 1;
}

function listOf(values: readonly string[]): string {
  return values.map((value) => JSON.stringify(value)).join(', ');
}

function invalid(path: string, reason: string): DomainError {
  return new DomainError('invalid_request', `${path}: ${reason}`);
}
