import type { ProfileRow, RecordedEvent } from '@guidepost/contracts-events';
import {
  type EventImportRow,
  EventImportRowSchema,
  GroupImportRowSchema,
  measureStorable,
  ProfileImportRowSchema,
  textFieldProblem,
} from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';
import { type Checked, compileCheck, csvCellTyper, csvColumnsOf, type CsvRow, setOwnField } from '@guidepost/platform-http';
import { instantOf } from '../../events/domain/instant';
import { unstorableInstantReason } from '../../events/domain/storable-event';
import type { RowProblem } from './row-failure';

/** A row ready to publish, with its size in characters (batches are bounded by rows and by size). */
export interface MappedRow<T> {
  readonly item: T;
  readonly size: number;
}

export type RowOutcome<T> = MappedRow<T> | RowProblem;

/**
 * How the rows of one import kind are read: from an NDJSON value, or from CSV cells under a header.
 * Both forms go through the same row schema and mapping, so a row means the same in either format.
 */
export interface ImportRowMapper<T> {
  fromJson(value: unknown, line: number): RowOutcome<T>;
  /** The mapper of the rows under `header`; a header the rows cannot be read under fails with 400 naming the line. */
  csvMapper(header: CsvRow): (cells: readonly string[], line: number) => RowOutcome<T>;
}

/** Where the rows come from: what deterministic event ids and receipt times are made of. */
export interface ImportOrigin {
  readonly jobId: string;
  /** When the upload was staged (ISO 8601): the `receivedAt` of every imported event. */
  readonly stagedAt: string;
}

type Fields = Record<string, unknown>;
type CsvCellTyper = ReturnType<typeof csvCellTyper>;

const NOT_AN_OBJECT: RowProblem = { field: null, reason: 'must be a JSON object' };

// ---- profiles and groups -------------------------------------------------------------------------

const USER_IDS = ['user_id', 'userId'] as const;
const GROUP_IDS = ['group_id', 'groupId'] as const;
const checkUserRow = compileCheck(ProfileImportRowSchema);
const checkGroupRow = compileCheck(GroupImportRowSchema);

/** Rows of `POST /import/profiles`: the id is `user_id` or `userId`, every other field is a property. */
export const userProfileRows: ImportRowMapper<ProfileRow> = profileRows(USER_IDS, checkUserRow);
/** Rows of `POST /import/groups`: the id is `group_id` or `groupId`, every other field is a property. */
export const groupProfileRows: ImportRowMapper<ProfileRow> = profileRows(GROUP_IDS, checkGroupRow);

function profileRows(ids: readonly [string, string], check: (value: unknown) => Checked<unknown>): ImportRowMapper<ProfileRow> {
  const [id, alias] = ids;
  const mapped = (fields: Fields, line: number): RowOutcome<ProfileRow> => {
    if (!hasAny(fields, ids)) return { field: id, reason: `is required (or ${alias})` };
    const problem = validationProblem(check, fields);
    if (problem) return problem;
    const identified = identifierOf(fields, ids);
    // The row has an id (checked above) of the right type (validated): undefined cannot happen.
    if (typeof identified !== 'string') return identified ?? { field: id, reason: 'is required' };
    const properties = withoutKeys(fields, ids);
    const size = measureStorable(properties, '');
    if (typeof size !== 'number') return size;
    return textFieldProblem(id, identified) ?? { item: { id: identified, properties, line }, size: size + identified.length };
  };
  return {
    fromJson: (value, line) => (isFields(value) ? mapped(value, line) : NOT_AN_OBJECT),
    csvMapper(header) {
      const columns = csvColumnsOf(header);
      if (!columns.some((column) => ids.includes(column))) {
        throw new DomainError('invalid_request', `line ${header.line}: the header has no ${id} or ${alias} column`);
      }
      const isId = columns.map((column) => ids.includes(column));
      const typers = columns.map(csvCellTyper);
      return (cells, line) => mapped(typedCsvFields(columns, typers, isId, cells), line);
    },
  };
}

function withoutKeys(fields: Fields, keys: readonly string[]): Fields {
  const rest: Fields = {};
  for (const key of Object.keys(fields)) if (!keys.includes(key)) setOwnField(rest, key, fields[key]);
  return rest;
}

/** A CSV row as the fields of an NDJSON row: cells typed by the shared rule, empty id cells absent. */
function typedCsvFields(
  columns: readonly string[],
  typers: readonly CsvCellTyper[],
  isId: readonly boolean[],
  cells: readonly string[],
): Fields {
  const fields: Fields = {};
  for (let index = 0; index < columns.length; index += 1) {
    const value = typers[index](cells[index]);
    if (value === undefined || (value === '' && isId[index])) continue;
    setOwnField(fields, columns[index], value);
  }
  return fields;
}

// ---- events --------------------------------------------------------------------------------------

const EVENT_IDS: readonly string[] = [...USER_IDS, ...GROUP_IDS];
/** The fields of an event row; any other field is an attribute. */
const EVENT_FIELDS: ReadonlySet<string> = new Set([...EVENT_IDS, 'name', 'timestamp', 'attributes', 'context']);
const checkEventRow = compileCheck(EventImportRowSchema);
const ATTRIBUTE_COLUMN = 'attributes.';
const CONTEXT_URL_COLUMN = 'context.url';

/**
 * Rows of `POST /import/events`. The event id is `<job id>:<line>`, so a row imported twice (a
 * worker restarted after a crash) is the same event to the event store; explicit `attributes` win
 * over other fields of the same name.
 */
export function eventRows(origin: ImportOrigin): ImportRowMapper<RecordedEvent> {
  const mapped = (fields: Fields, line: number) => eventOf(fields, line, origin);
  return {
    fromJson: (value, line) => (isFields(value) ? mapped(value, line) : NOT_AN_OBJECT),
    csvMapper(header) {
      const columns = csvColumnsOf(header);
      checkEventHeader(columns, header.line);
      const plan = columns.map(eventColumnOf);
      return (cells, line) => mapped(csvEventFields(plan, cells), line);
    },
  };
}

function eventOf(fields: Fields, line: number, origin: ImportOrigin): RowOutcome<RecordedEvent> {
  if (!hasAny(fields, EVENT_IDS)) return { field: 'user_id', reason: 'is required (or userId, group_id, groupId)' };
  const problem = validationProblem(checkEventRow, fields);
  if (problem) return problem.field === 'timestamp' && fields['timestamp'] !== undefined ? timestampProblem(fields['timestamp']) : problem;
  const userId = identifierOf(fields, USER_IDS);
  if (typeof userId === 'object') return userId;
  const groupId = identifierOf(fields, GROUP_IDS);
  if (typeof groupId === 'object') return groupId;
  const row = fields as EventImportRow;
  const instant = instantOf(row.timestamp);
  if (instant === undefined) return timestampProblem(row.timestamp);
  const unstorable = unstorableInstantReason(instant);
  if (unstorable !== undefined) return { field: 'timestamp', reason: `${unstorable}, got ${quoted(row.timestamp)}` };
  const attributes = attributesOf(fields, row.attributes);
  const size = measureStorable(attributes, ATTRIBUTE_COLUMN);
  if (typeof size !== 'number') return size;
  const textProblems =
    textFieldProblem('name', row.name) ??
    textFieldProblem(CONTEXT_URL_COLUMN, row.context?.url) ??
    textFieldProblem('user_id', userId) ??
    textFieldProblem('group_id', groupId);
  if (textProblems) return textProblems;
  const event: RecordedEvent = {
    eventId: `${origin.jobId}:${line}`,
    userId: userId ?? '',
    name: row.name,
    timestamp: instant.toISOString(),
    attributes,
    receivedAt: origin.stagedAt,
  };
  // Assigned rather than spread in: this runs for every row of files with millions.
  if (groupId !== undefined) event.groupId = groupId;
  if (row.context?.url !== undefined) event.contextUrl = row.context.url;
  return { item: event, size: size + row.name.length + (row.context?.url?.length ?? 0) + (userId?.length ?? 0) + (groupId?.length ?? 0) };
}

/** Longest quote of a row's value in a failure reason. */
const QUOTED_VALUE_CHARS = 40;

function timestampProblem(value: unknown): RowProblem {
  return {
    field: 'timestamp',
    reason: `must be an ISO 8601 date-time with seconds and Z or an offset (+HH:MM, -HH:MM), got ${quoted(value)}`,
  };
}

/** A row's value as a failure reason quotes it: JSON, shortened. */
function quoted(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > QUOTED_VALUE_CHARS ? `${text.slice(0, QUOTED_VALUE_CHARS)}...` : text;
}

/** `attributes` merged over every field that is not an event field. */
function attributesOf(fields: Fields, given: Fields | undefined): Fields {
  let others: [string, unknown][] | undefined;
  for (const key of Object.keys(fields)) {
    if (!EVENT_FIELDS.has(key)) (others ??= []).push([key, fields[key]]);
  }
  if (others === undefined) return given ?? {};
  // Spread and fromEntries define own properties, so a key named `__proto__` stays data.
  return { ...Object.fromEntries(others), ...given };
}

function checkEventHeader(columns: readonly string[], line: number): void {
  if (!columns.some((column) => EVENT_IDS.includes(column))) {
    throw new DomainError('invalid_request', `line ${line}: the header has none of the columns user_id, userId, group_id, groupId`);
  }
  for (const required of ['name', 'timestamp']) {
    if (!columns.includes(required)) throw new DomainError('invalid_request', `line ${line}: the header has no ${required} column`);
  }
  for (const nested of ['attributes', 'context']) {
    if (columns.includes(nested)) {
      throw new DomainError(
        'invalid_request',
        `line ${line}: a CSV cell cannot hold the ${nested} object: write one ${nested}.<key> column per key ` +
          '(attributes.<key>, context.url)',
      );
    }
  }
}

/** Where the cells of a CSV column of an event import go, worked out once per header. */
interface EventColumn {
  readonly column: string;
  /** The attribute key of an `attributes.<key>` column. */
  readonly attribute?: string;
  readonly isContextUrl: boolean;
  readonly isId: boolean;
  readonly typed: CsvCellTyper;
}

function eventColumnOf(column: string): EventColumn {
  return {
    column,
    ...(column.startsWith(ATTRIBUTE_COLUMN) ? { attribute: column.slice(ATTRIBUTE_COLUMN.length) } : {}),
    isContextUrl: column === CONTEXT_URL_COLUMN,
    isId: EVENT_IDS.includes(column),
    typed: csvCellTyper(column),
  };
}

/**
 * A CSV row as the fields of an NDJSON event row: `attributes.<key>` columns into `attributes`,
 * `context.url` into `context`, other columns as top-level fields (attributes too, then). Cells are
 * typed by the shared rule; empty id and URL cells are absent.
 */
function csvEventFields(plan: readonly EventColumn[], cells: readonly string[]): Fields {
  const fields: Fields = {};
  let attributes: Fields | undefined;
  for (let index = 0; index < plan.length; index += 1) {
    const { column, attribute, isContextUrl, isId, typed } = plan[index];
    const cell = cells[index];
    if (isContextUrl) {
      if (cell !== '') fields['context'] = { url: cell };
      continue;
    }
    const value = typed(cell);
    if (value === undefined || (value === '' && isId)) continue;
    if (attribute === undefined) setOwnField(fields, column, value);
    else setOwnField((attributes ??= {}), attribute, value);
  }
  if (attributes !== undefined) fields['attributes'] = attributes;
  return fields;
}

// ---- shared --------------------------------------------------------------------------------------

function hasAny(fields: Fields, names: readonly string[]): boolean {
  return names.some((name) => fields[name] !== undefined);
}

/**
 * The identifier a validated row gives under `names` (say `user_id` or `userId`), undefined when it
 * gives none, or the problem when it gives two that differ.
 */
function identifierOf(fields: Fields, names: readonly string[]): string | undefined | RowProblem {
  let found: string | undefined;
  for (const name of names) {
    const value = fields[name];
    if (typeof value !== 'string') continue;
    if (found !== undefined && value !== found) return { field: name, reason: `differs from ${names[0]}` };
    found = value;
  }
  return found;
}

function validationProblem(check: (value: unknown) => Checked<unknown>, fields: Fields): RowProblem | undefined {
  const checked = check(fields);
  return checked.ok ? undefined : checked.failure;
}

function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
