import { type IngestionFilteringRules, isKeptByFilteringRules } from '@guidepost/contracts-events';
import { DomainError } from '@guidepost/platform-http';
import { PROFILE_KINDS, type ProfileKind } from './profile-kind';

/** A profile, or the part of one a write sets: free-form properties by name. */
export type ProfileProperties = Record<string, unknown>;

export interface FilteredProperties {
  /** What the rules keep, to be written. */
  readonly kept: ProfileProperties;
  /** Names the rules drop, to be counted and logged. */
  readonly dropped: string[];
}

/** Splits a write into what the account's filtering rules keep and the names they drop. */
export function filterProperties(rules: IngestionFilteringRules, kind: ProfileKind, properties: ProfileProperties): FilteredProperties {
  const list = PROFILE_KINDS[kind].rulesList;
  const kept: [string, unknown][] = [];
  const dropped: string[] = [];
  for (const entry of Object.entries(properties)) {
    if (isKeptByFilteringRules(rules, list, entry[0])) kept.push(entry);
    else dropped.push(entry[0]);
  }
  // `fromEntries` defines own properties, so a property named `__proto__` stays data.
  return { kept: Object.fromEntries(kept), dropped };
}

/** Whether PostgreSQL can store the text: it refuses the NUL character in `text` and `jsonb` alike. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000');
}

/**
 * Where a value holds text PostgreSQL cannot store (a NUL character, in a key or a string, at any
 * depth), as a property path such as `address.lines.0`; undefined when there is none. Walks with its
 * own stack, so a deeply nested body cannot overflow the call stack.
 */
export function unstorableTextPath(properties: ProfileProperties): string | undefined {
  const pending: { path: string; value: unknown }[] = [{ path: '', value: properties }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { path, value } = next;
    if (typeof value === 'string') {
      if (!isStorableText(value)) return path;
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        const itemPath = path === '' ? key : `${path}.${key}`;
        if (!isStorableText(key)) return itemPath;
        pending.push({ path: itemPath, value: item });
      }
    }
  }
  return undefined;
}

/** Refuses, with 400 naming the property, a write that PostgreSQL would reject with a server error. */
export function assertStorableProperties(properties: ProfileProperties): void {
  const path = unstorableTextPath(properties);
  if (path !== undefined) throw new DomainError('invalid_request', `${path}: contains a NUL character, which cannot be stored`);
}

/** The same for an identifier, named by its field (`user_id`, `group_id`). */
export function assertStorableId(field: string, id: string): void {
  if (!isStorableText(id)) throw new DomainError('invalid_request', `${field}: contains a NUL character, which cannot be stored`);
}

/**
 * Imported rows merged per id in line order, as if each row were written after the previous one: a
 * later row's value wins key by key, earlier keys it does not name are kept. One write per id then
 * does what the rows would do one by one (a statement may not update the same row twice).
 */
export function mergeInLineOrder(rows: readonly LineOfProperties[]): Map<string, ProfileProperties> {
  const merged = new Map<string, ProfileProperties>();
  const inLineOrder = [...rows].sort((a, b) => a.line - b.line);
  for (const row of inLineOrder) merged.set(row.id, { ...merged.get(row.id), ...row.properties });
  return merged;
}

export interface LineOfProperties {
  readonly id: string;
  readonly line: number;
  readonly properties: ProfileProperties;
}
