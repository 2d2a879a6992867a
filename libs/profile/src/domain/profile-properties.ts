import { type IngestionFilteringRules, isKeptByFilteringRules } from '@guidepost/contracts-events';
import { measureStorable, type ValueProblem } from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';
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

/**
 * Refuses, with 400 naming the property, a write that PostgreSQL would reject with a server error or
 * change on the way (`measureStorable`: NUL, lone surrogates, numbers JSON cannot write, nesting over
 * `MAX_NESTING`), and a property without a name, which no client could address. Their number is
 * bounded by the update schemas (`PROFILE_UPDATE_MAX_PROPERTIES`).
 */
export function assertStorableProperties(properties: ProfileProperties): void {
  if (Object.hasOwn(properties, '')) throw new DomainError('invalid_request', '"": a property name must not be empty');
  const problem = unstorableProblem(properties);
  if (problem !== undefined) throw new DomainError('invalid_request', `${problem.field}: ${problem.reason}`);
}

/** What of the properties cannot be stored, named by its property; undefined when everything can. */
export function unstorableProblem(properties: ProfileProperties): ValueProblem | undefined {
  const measured = measureStorable(properties, '');
  return typeof measured === 'number' ? undefined : measured;
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
