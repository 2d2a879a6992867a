/** A UTF-16 surrogate without its other half: valid in a JavaScript string, not encodable as UTF-8. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The text with each lone surrogate replaced by U+FFFD, as UTF-8 encoding would. JSON requests may
 * carry them (`"\ud800"`); ClickHouse refuses such an escape in a row, which would fail the whole
 * insert, so every string bound for the event store (and every string compared with one) goes
 * through here first.
 */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd');
}

/** `JSON.stringify` writes a lone surrogate as a `\udXXX` escape, and every other character as itself. */
const LONE_SURROGATE_ESCAPE = /\\ud[89a-f]/i;

/** JSON text of the value with `wellFormed` keys and strings; the plain `JSON.stringify` unless a lone surrogate is in it. */
export function wellFormedJson(value: unknown): string {
  const text = JSON.stringify(value);
  return LONE_SURROGATE_ESCAPE.test(text) ? JSON.stringify(value, (_key, item: unknown) => wellFormedItem(item)) : text;
}

function wellFormedItem(item: unknown): unknown {
  if (typeof item === 'string') return wellFormed(item);
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
  // fromEntries defines own properties, so a key named `__proto__` stays a key.
  return Object.fromEntries(Object.entries(item).map(([key, value]) => [wellFormed(key), value]));
}
