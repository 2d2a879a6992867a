import { textProblem } from './input-limits';

/** A value the stores (and the outbox before them) cannot hold, named by its field. */
export interface ValueProblem {
  readonly field: string;
  readonly reason: string;
}

/** Deepest nesting of arrays and objects a value may have (PostgreSQL and `JSON.stringify` both recurse). */
export const MAX_NESTING = 64;

/**
 * Checks that every key and value of `values` can be stored as it is, and measures them. Free-form
 * data (event attributes, profile properties) travels as JSON through PostgreSQL `jsonb` (a profile,
 * the outbox) to the stores: text with NUL or a lone surrogate (`"\u0000"`, `"\ud800"` are valid
 * JSON), a number JSON cannot write (`1e400` parses as Infinity) or a value nested deeper than
 * `MAX_NESTING` would fail the write, and the whole batch it travels in (or be changed on the way), so
 * every intake refuses it instead, naming the field (`<prefix><key>`): a request with 400, an imported
 * row as a failure of that row.
 *
 * @returns the size of the keys and text in characters (a cheap measure of the row's memory), or the problem.
 */
export function measureStorable(values: Readonly<Record<string, unknown>>, prefix: string): number | ValueProblem {
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

/** Why a text field (an event's `name`, an id, `context.url`) cannot be stored, named by the field; undefined when it can. */
export function textFieldProblem(field: string, text: string | undefined): ValueProblem | undefined {
  const problem = text === undefined ? undefined : textProblem(text);
  return problem ? { field, reason: `holds text that ${problem}` } : undefined;
}
