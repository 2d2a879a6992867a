import { randomUUID } from 'node:crypto';
import { admin, api, eventually, expectJson, type ApiInit, type TestAccount } from './support';
import { expectAccepted, handBuiltMultipart, type AsyncAcknowledgement } from './support-segments';

/**
 * Helpers shared by the end-user, group, event, import and export specs. Like the segment helpers they
 * drive only the public API (and the admin API for filtering rules, the web studio's stand-in).
 */

export type Json = Record<string, unknown>;

/** The synchronous acknowledgement of PATCH, track and group association. */
export const STATUS_OK = { status: 200, title: 'OK' };

/** A timestamp as the service renders it in UTC: milliseconds and `Z`. */
export const UTC_MILLIS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** An id no other test uses: tests of one file share an account, never a user or a group. */
export function uniqueId(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export function userPath(userId: string, resource: 'profile' | 'events'): string {
  return `/users/${encodeURIComponent(userId)}/${resource}`;
}

export function groupPath(groupId: string, resource: 'profile' | 'users'): string {
  return `/groups/${encodeURIComponent(groupId)}/${resource}`;
}

/** PATCHes a user profile (JSON) and requires the 200 acknowledgement. */
export async function patchProfile(account: TestAccount, userId: string, properties: Json): Promise<void> {
  expect(await expectJson(await api(account, 'PATCH', userPath(userId, 'profile'), { json: properties }), 200)).toEqual(STATUS_OK);
}

export async function getProfile(account: TestAccount, userId: string): Promise<Json> {
  return expectJson<Json>(await api(account, 'GET', userPath(userId, 'profile')), 200);
}

export async function getGroupProfile(account: TestAccount, groupId: string): Promise<Json> {
  return expectJson<Json>(await api(account, 'GET', groupPath(groupId, 'profile')), 200);
}

/**
 * Waits until a user or group profile holds exactly `expected`. An import's `Completed` says its rows
 * are durably handed to the profile service; in the distributed shape that service merges them a
 * moment later, so a read right after it may still see the profile as it was.
 */
export async function eventuallyProperties(
  account: TestAccount,
  profile: { user: string } | { group: string },
  expected: Json,
): Promise<void> {
  await eventually(async () => {
    const properties =
      'user' in profile
        ? propertiesOf(await getProfile(account, profile.user), 'user_id', profile.user)
        : propertiesOf(await getGroupProfile(account, profile.group), 'group_id', profile.group);
    expect(properties).toEqual(expected);
  });
}

/**
 * A profile without its identifying key: the spec calls a profile free-form key/value data addressed by
 * its id, so an implementation may or may not echo the id; when it does, it must be the right one.
 */
export function propertiesOf(profile: Json, idKey: 'user_id' | 'group_id', id: string): Json {
  if (profile[idKey] !== id) return profile;
  return Object.fromEntries(Object.entries(profile).filter(([key]) => key !== idKey));
}

/** An event as event history returns it. */
export interface HistoryEvent {
  readonly user_id: string;
  readonly name: string;
  readonly timestamp: string;
  readonly attributes?: Json;
}

/** Tracks one event (JSON) and requires the 200 acknowledgement. */
export async function track(account: TestAccount, userId: string, event: Json): Promise<void> {
  expect(await expectJson(await api(account, 'POST', userPath(userId, 'events'), { json: event }), 200)).toEqual(STATUS_OK);
}

export async function history(account: TestAccount, userId: string, query = ''): Promise<HistoryEvent[]> {
  return expectJson<HistoryEvent[]>(await api(account, 'GET', `${userPath(userId, 'events')}${query}`), 200);
}

/** Waits (events reach history within seconds) until the user's history holds at least `count` events. */
export async function historyOfAtLeast(account: TestAccount, userId: string, count: number, query = ''): Promise<HistoryEvent[]> {
  return eventually(
    async () => {
      const events = await history(account, userId, query);
      if (events.length < count) throw new Error(`history of ${userId} has ${events.length} of ${count} events: ${JSON.stringify(events)}`);
      return events;
    },
    20_000,
    250,
  );
}

/** Waits until the user's history holds an event that `matches`, and returns it. */
export async function eventuallyInHistory(
  account: TestAccount,
  userId: string,
  matches: (event: HistoryEvent) => boolean,
  query = '?limit=1000',
): Promise<HistoryEvent> {
  return eventually(
    async () => {
      const events = await history(account, userId, query);
      const found = events.find(matches);
      if (found === undefined) throw new Error(`no matching event in the history of ${userId}: ${JSON.stringify(events).slice(0, 1500)}`);
      return found;
    },
    20_000,
    250,
  );
}

/** Newline-delimited JSON of the given values, one per line. */
export function ndjsonText(values: readonly unknown[]): string {
  return `${values.map((value) => JSON.stringify(value)).join('\n')}\n`;
}

export function ndjsonBody(text: string): ApiInit {
  return { body: text, headers: { 'Content-Type': 'application/ndjson' } };
}

export function csvBody(text: string): ApiInit {
  return { body: text, headers: { 'Content-Type': 'text/csv' } };
}

/** An uploaded file as HTML forms and most HTTP libraries send it (`multipart/form-data`, field `file`). */
export function formUpload(content: string, fileName: string, type: string): ApiInit {
  const form = new FormData();
  form.append('file', new Blob([content], { type }), fileName);
  return { body: form };
}

/** An uploaded file as the spec names it (`multipart/mixed`, field `file`). */
export function mixedUpload(content: string, fileName: string, type: string): ApiInit {
  return handBuiltMultipart('mixed', { field: 'file', fileName, contentType: type, content });
}

/**
 * A body just over the 20 MB request limit made of valid lines, so that only its size is at fault;
 * `line` is one record without its line break.
 */
export function oversizedLines(line: string): string {
  const lineCount = Math.ceil((20 * 1024 * 1024 + 1024) / (line.length + 1));
  return `${line}\n`.repeat(lineCount);
}

/** Detail of a 413: names the 20 MB limit. */
export const BODY_LIMIT_DETAIL = /20\s?MB|20971520|20 ?MiB/i;

export interface FilteringRules {
  readonly mode: 'allow' | 'deny';
  readonly event_names?: string[];
  readonly user_properties?: string[];
  readonly group_properties?: string[];
}

/**
 * Sets the account's ingestion filtering rules through the admin API. The services keep their own
 * copies fed by a bus message, so a test then waits with `eventually` for its probe to see the rules.
 */
export async function setFilteringRules(account: Pick<TestAccount, 'id'>, rules: FilteringRules): Promise<void> {
  const response = await admin('PUT', `/admin/v1/accounts/${encodeURIComponent(account.id)}/ingestion_filtering_rules`, rules);
  await expectJson(response, 200);
}

export type ImportKind = 'profiles' | 'groups' | 'events';

/** Sends an import and checks its 202 (whose job answers at once); returns the acknowledgement. */
export async function startImport(account: TestAccount, kind: ImportKind, init: ApiInit): Promise<AsyncAcknowledgement> {
  return expectAccepted(account, await api(account, 'POST', `/import/${kind}`, init));
}

/** A per-row failure of an import, as `GET /jobs/{job_id}/failures` lists it. */
export interface RowFailure {
  readonly line: number;
  /** Null when the row as a whole is at fault (not JSON, not an object). */
  readonly field: string | null;
  readonly reason: string;
}

export async function importFailures(account: TestAccount, jobId: string): Promise<RowFailure[]> {
  return expectJson<RowFailure[]>(await api(account, 'GET', `/jobs/${encodeURIComponent(jobId)}/failures`), 200);
}

/** Sorts events (or export lines) so that sets can be compared whatever order they came in. */
export function byUserThenTimestamp<T extends { user_id?: unknown; timestamp?: unknown; name?: unknown }>(rows: readonly T[]): T[] {
  const key = (row: T) => `${String(row.user_id)}\u0000${String(row.timestamp)}\u0000${String(row.name)}`;
  return [...rows].sort((left, right) => key(left).localeCompare(key(right)));
}
