import { Type } from '@sinclair/typebox';

/**
 * Bounds on what the public API takes in that several endpoints share, in one place, so that a value
 * is judged alike on every path in and out and the OpenAPI document states the same numbers.
 */

/**
 * The longest user, group, segment or job id, in characters (Unicode code points, as JSON Schema's
 * `maxLength` counts them). The contract names no maximum. 255 characters are at most 1,020 bytes of
 * UTF-8: far below PostgreSQL's limit on an index entry (about 2.7 KB), and short enough for a URL path,
 * so an id accepted by an import can always be read, updated and deleted through its path.
 */
export const ID_MAX_LENGTH = 255;

/** An identifier field of a body or a row: 1 to `ID_MAX_LENGTH` characters. No `$id`: it is embedded. */
export const identifierSchema = (description: string) =>
  Type.String({ minLength: 1, maxLength: ID_MAX_LENGTH, description: `${description} (1 to ${ID_MAX_LENGTH} characters)` });

/**
 * Why `id` is not an identifier the API takes, or undefined when it is: empty, longer than
 * `ID_MAX_LENGTH`, or text that cannot be stored. The wording of the length matches the schema's (ajv),
 * so an id too long reads the same whether a schema or this check caught it.
 */
export function identifierProblem(id: string): string | undefined {
  if (id.length === 0) return 'must not be empty';
  // UTF-16 units are at least as many as code points: only a long id needs counting.
  if (id.length > ID_MAX_LENGTH && characterCount(id) > ID_MAX_LENGTH) return `must NOT have more than ${ID_MAX_LENGTH} characters`;
  return textProblem(id);
}

/** Characters that may make text unstorable: NUL, and the surrogates (fine in pairs, not alone). */
const SUSPECT_CHARACTER = /[\u0000\ud800-\udfff]/;
/** A UTF-16 surrogate without its other half: valid in a JavaScript string (and in JSON as `"\ud800"`), not a character. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why text cannot be stored, or undefined when it can (the usual case costs one regular-expression
 * test). PostgreSQL refuses NUL in `text` and `jsonb`, and a lone surrogate in `jsonb` (JSON writes it
 * as an escape, `\ud800`); UTF-8 has no encoding for one, so elsewhere it would silently become U+FFFD.
 * Refusing both at intake keeps every value that passed validation storable everywhere it goes.
 */
export function textProblem(text: string): string | undefined {
  if (!SUSPECT_CHARACTER.test(text)) return undefined;
  if (text.includes('\u0000')) return 'contains a NUL character (\\u0000), which cannot be stored';
  if (LONE_SURROGATE.test(text)) return 'contains a lone UTF-16 surrogate (\\ud800 to \\udfff), which is not a character';
  return undefined;
}

/** Length in Unicode code points: how JSON Schema's `maxLength` counts (a surrogate pair is one character). */
function characterCount(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    // A high surrogate followed by a low one is one character: skip the low one.
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
    }
    count += 1;
  }
  return count;
}
