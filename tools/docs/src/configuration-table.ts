import type { TSchema } from '@sinclair/typebox';
import { EnvironmentSchema } from '@guidepost/platform-config';

/** The README's configuration table sits between these two lines; `npm run docs` rewrites what is between. */
export const TABLE_START =
  '<!-- configuration table: written by `npm run docs` from libs/platform/config/src/config.schema.ts; edit the schema, not this table -->';
export const TABLE_END = '<!-- end of configuration table -->';

/** The unit a variable's name ends with, which says how to read its numbers. */
type Unit = 'bytes' | 'ms' | 'seconds' | 'count';

interface VariableSchema {
  readonly type?: string;
  readonly default?: unknown;
  readonly description?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly pattern?: string;
  readonly anyOf?: readonly { readonly const?: unknown }[];
}

/**
 * The configuration table, one row per variable of the schema in the schema's order: its default
 * (or `unset`, when the description says what happens then), the values it accepts as far as the
 * schema bounds them, and its description.
 */
export function configurationTable(schema: { properties: Record<string, TSchema>; required?: string[] } = EnvironmentSchema): string {
  const required = new Set(schema.required ?? []);
  const rows = Object.entries(schema.properties).map(([name, property]) => {
    const variable = property as VariableSchema;
    const unit = unitOf(name);
    if (!variable.description) throw new Error(`${name} has no description in the configuration schema`);
    const defaultValue = required.has(name) ? withUnit(variable.default, unit) : 'unset';
    return `| \`${name}\` | ${defaultValue} | ${accepted(variable, unit)} | ${cell(variable.description)} |`;
  });
  return ['| variable | default | accepts | meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** `readme` with the text between the table's markers replaced by `table`. */
export function withConfigurationTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md lacks the configuration table markers (${TABLE_START} ... ${TABLE_END})`);
  return `${readme.slice(0, start + TABLE_START.length)}\n${table}\n${readme.slice(end)}`;
}

function unitOf(name: string): Unit {
  if (name.endsWith('_BYTES')) return 'bytes';
  if (name.endsWith('_MS')) return 'ms';
  if (name.endsWith('_SECONDS')) return 'seconds';
  return 'count';
}

function withUnit(value: unknown, unit: Unit): string {
  const literal = `\`${String(value)}\``;
  if (typeof value !== 'number' || unit === 'count') return literal;
  const readable = readableAmount(value, unit);
  return readable === `${value}` ? literal : `${literal} (${readable})`;
}

function accepted(variable: VariableSchema, unit: Unit): string {
  if (variable.anyOf) return variable.anyOf.map((option) => `\`${String(option.const)}\``).join(', ');
  if (variable.type === 'boolean') return '`true`, `false`';
  if (variable.type === 'integer') {
    const { minimum, maximum } = variable;
    if (minimum !== undefined && maximum !== undefined) return `${readableAmount(minimum, unit)} to ${readableAmount(maximum, unit)}`;
    if (minimum !== undefined) return `at least ${readableAmount(minimum, unit)}`;
    return 'an integer';
  }
  if (variable.minLength !== undefined && variable.minLength > 1) return `at least ${variable.minLength} characters`;
  if (variable.pattern?.includes('://')) return `a URL, \`${urlScheme(variable.pattern)}://...\``;
  return variable.pattern ? `text matching \`${cell(variable.pattern)}\`` : 'text';
}

/** `http(s)` of `^https?://...`, `postgres(ql)` of `^postgres(ql)?://`. */
function urlScheme(pattern: string): string {
  return pattern.slice(1, pattern.indexOf('://')).replace('s?', '(s)').replace(')?', ')');
}

const DURATIONS_MS: readonly [number, string][] = [
  [24 * 60 * 60 * 1000, 'day'],
  [60 * 60 * 1000, 'hour'],
  [60 * 1000, 'minute'],
  [1000, 'second'],
];
const SIZES: readonly [number, string][] = [
  [1024 ** 3, 'GiB'],
  [1024 ** 2, 'MiB'],
  [1024, 'KiB'],
];

/** `value` in the largest unit that divides it: 604800 seconds are `7 days`, 20971520 bytes `20 MiB`; counts with thousands separators. */
function readableAmount(value: number, unit: Unit): string {
  if (unit === 'count' || value === 0) return value.toLocaleString('en-US');
  if (unit === 'bytes') {
    const size = SIZES.find(([bytes]) => value % bytes === 0);
    return size ? `${value / size[0]} ${size[1]}` : `${value} bytes`;
  }
  const ms = unit === 'seconds' ? value * 1000 : value;
  const duration = DURATIONS_MS.find(([length]) => ms % length === 0);
  if (!duration) return `${ms} ms`;
  const count = ms / duration[0];
  return `${count} ${duration[1]}${count === 1 ? '' : 's'}`;
}

/** Text fit for one Markdown table cell. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}
