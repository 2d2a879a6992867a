import { MAX_NESTING, textProblem } from '@guidepost/contracts-http';
/**
 * Deepest nesting of arrays and objects a JSON body (or NDJSON line) may have: the one limit of stored
 * values (`MAX_NESTING`). Every layer behind the parser recurses (validation, `JSON.stringify`,
 * PostgreSQL `jsonb`), so a body nested thousands of levels deep would overflow a stack somewhere behind
 * it; no real document needs more.
 */
export const MAX_JSON_NESTING = MAX_NESTING;

export const NESTED_TOO_DEEP = `is nested more than ${MAX_JSON_NESTING} levels deep (arrays and objects)`;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether JSON text opens more than `MAX_JSON_NESTING` arrays or objects inside each other. Looks at
 * the text before `JSON.parse` does: parsing a 20 MB body of `[` takes seconds and hundreds of MB. One
 * pass without recursion; strings are skipped with `indexOf`, so the usual body costs little. Text that
 * is not JSON is left for `JSON.parse` to report.
 */
export function nestsTooDeep(text: string): boolean {
  // Fewer characters than the limit cannot open that many levels.
  if (text.length <= MAX_JSON_NESTING) return false;
  let depth = 0;
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      at = closingQuote(text, at);
      if (at === -1) return false;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > MAX_JSON_NESTING) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return false;
}

/** Where the string opened at `open` closes: the next quote not escaped by an odd run of backslashes. */
function closingQuote(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}

/** A value of a parsed JSON document that cannot be taken, and where it is. */
export interface JsonValueProblem {
  /** Dotted path from the root (`attributes.n`, `user_ids.3`); empty for the root itself. */
  readonly path: string;
  readonly reason: string;
}

const TOO_LARGE = 'is a number too large to store (beyond ±1.8e308; JSON would write it as null)';

/** An array or object being walked: its keys (none for an array, whose keys are its indices) and how far the walk has got. */
interface Level {
  readonly container: Record<string, unknown> | unknown[];
  readonly keys: readonly string[] | undefined;
  readonly length: number;
  readonly key: string;
  next: number;
}

/**
 * The first key or value of a parsed JSON document that no store can hold: text with NUL or a lone
 * surrogate, or a number beyond the range of a double (`1e400` parses as Infinity, which JSON writes
 * as null). One walk with its own stack (the nesting was bounded before parsing), cheaper than the
 * parsing before it; the path is put together only when something is found.
 */
export function jsonValueProblem(root: unknown): JsonValueProblem | undefined {
  const own = leafProblem(root);
  if (own !== undefined) return { path: '', reason: own };
  if (typeof root !== 'object' || root === null) return undefined;
  const levels: Level[] = [levelOf(root, '')];
  while (levels.length > 0) {
    const level = levels[levels.length - 1];
    if (level.next === level.length) {
      levels.pop();
      continue;
    }
    const index = level.next;
    level.next += 1;
    // An array's index becomes a key only when needed: lists of a million ids are walked too.
    let key: string | undefined;
    let value: unknown;
    if (level.keys === undefined) {
      value = (level.container as unknown[])[index];
    } else {
      key = level.keys[index];
      const keyProblem = textProblem(key);
      if (keyProblem !== undefined) return { path: pathOf(levels, key), reason: `has a name that ${keyProblem}` };
      value = (level.container as Record<string, unknown>)[key];
    }
    if (typeof value === 'object' && value !== null) {
      levels.push(levelOf(value, key ?? String(index)));
      continue;
    }
    const problem = leafProblem(value);
    if (problem !== undefined) return { path: pathOf(levels, key ?? String(index)), reason: problem };
  }
  return undefined;
}

function leafProblem(value: unknown): string | undefined {
  if (typeof value === 'string') return textProblem(value);
  if (typeof value === 'number' && !Number.isFinite(value)) return TOO_LARGE;
  return undefined;
}

function levelOf(container: object, key: string): Level {
  if (Array.isArray(container)) return { container, keys: undefined, length: container.length, key, next: 0 };
  const keys = Object.keys(container);
  return { container: container as Record<string, unknown>, keys, length: keys.length, key, next: 0 };
}

/** Longest piece of a key shown in a path: a detail names the place, it does not echo the body. */
const MAX_SHOWN_KEY = 64;

function pathOf(levels: readonly Level[], key: string): string {
  // The root level has no key of its own.
  return [...levels.slice(1).map((level) => level.key), key].map(printableKey).join('.');
}

/** A key as it can be shown: NUL and lone surrogates as escapes, long keys cut short. */
function printableKey(key: string): string {
  const shown = key.length > MAX_SHOWN_KEY ? `${key.slice(0, MAX_SHOWN_KEY)}…` : key;
  if (textProblem(shown) === undefined) return shown;
  return shown.replace(
    /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
