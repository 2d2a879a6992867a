import { wellFormed } from '../../events/domain/well-formed-text';
import type { RowProblem } from './row-failure';

/** Deepest nesting of arrays and objects a value may have (PostgreSQL and `JSON.stringify` both recurse). */
export const MAX_NESTING = 64;

/** Characters that may make text unstorable: NUL, and the surrogates (fine in pairs, not alone). */
const SUSPECT_CHARACTER = /[\u0000\ud800-\udfff]/;

/**
 * Checks that every key and value of `values` can be stored as it is, and measures them. A row
 * travels as JSON through the outbox (PostgreSQL `jsonb`) to the stores: text with NUL or a lone
 * surrogate (`"\u0000"`, `"\ud800"` are valid JSON), a number JSON cannot write (`1e400` parses as
 * Infinity) or a value nested deeper than `MAX_NESTING` would fail the whole batch it travels in, so
 * such a row fails on its own instead, naming the field (`<prefix><key>`).
 *
 * @returns the size of the keys and text in characters (a cheap measure of the row's memory), or the problem.
 */
export function measureStorable(values: Readonly<Record<string, unknown>>, prefix: string): number | RowProblem {
  let size = 0;
  for (const key of Object.keys(values)) {
    const keyProblem = textProblem(key);
    if (keyProblem) return { field: prefix + key, reason: `has a name that ${keyProblem}` };
    const measured = measureValue(values[key]);
    if (typeof measured !== 'number') return { field: prefix + key, reason: measured.reason };
    size += key.length + measured;
  }
  return size;
}

/** The size of one value (its text and keys), or why it cannot be stored. Iterative: depth is bounded by the check, not the stack. */
function measureValue(root: unknown): number | { reason: string } {
  let size = 0;
  const pending: { readonly value: unknown; readonly depth: number }[] = [{ value: root, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, depth } = next;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return { reason: `holds text that ${problem}` };
      size += value.length;
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) return { reason: 'holds a number too large to store (JSON would write it as null)' };
      size += 8;
    } else if (typeof value === 'object' && value !== null) {
      if (depth > MAX_NESTING) return { reason: `is nested more than ${MAX_NESTING} levels deep` };
      if (Array.isArray(value)) {
        for (const item of value) pending.push({ value: item, depth: depth + 1 });
      } else {
        for (const [key, item] of Object.entries(value)) {
          const problem = textProblem(key);
          if (problem) return { reason: `holds a key that ${problem}` };
          size += key.length;
          pending.push({ value: item, depth: depth + 1 });
        }
      }
    } else {
      size += 8;
    }
  }
  return size;
}

/** Why text cannot be stored, or undefined when it can (the usual case costs one regular-expression test). */
export function textProblem(text: string): string | undefined {
  if (!SUSPECT_CHARACTER.test(text)) return undefined;
  if (text.includes('\u0000')) return 'contains a NUL character (\\u0000), which cannot be stored';
  if (wellFormed(text) !== text) return 'contains a lone UTF-16 surrogate (\\ud800 to \\udfff), which is not a character';
  return undefined;
}
