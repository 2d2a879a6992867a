/** A request path as every host reads it: its segments percent-decoded, or why it has no one reading. */
export type PathReading =
  { readonly segments: readonly string[]; readonly problem?: undefined } | { readonly segments?: undefined; readonly problem: string };

/** Characters a path may not hold as they are (see `readPath`). */
const STRAY_CHARACTER = /[\\#]|[^\x21-\x7e]/;
const STRAY_CHARACTER_NAMES: Readonly<Record<string, string>> = { '\\': "a backslash ('\\')", '#': "'#'" };

/**
 * Reads the path of a request target (no query string) into its decoded segments, refusing every
 * spelling that two parsers could read as two different paths:
 *
 * - a backslash, which WHATWG URL parsers (undici, browsers) take for `/` in an `http:` URL while
 *   Fastify's router takes it for an ordinary character;
 * - a dot segment, `.` or `..` in any spelling (`%2e`, `%2E%2e`, ...), which URL parsers resolve
 *   against the segments before it and routers do not;
 * - an empty segment (`//`, or a `/` at the end), which some proxies and routers merge and others keep;
 * - a `#`, and raw characters beyond printable ASCII, which parsers read in different ways;
 * - a percent escape that is not UTF-8 (an overlong `%C0%AE`, a lone `%FF`), which decoders disagree on.
 *
 * Every other character is a segment's own: an encoded separator (`%2F`, `%5C`) stays inside its
 * segment, so an id holding `/` or `\` is still reachable. `canonicalPathOf` spells the segments back.
 */
export function readPath(path: string): PathReading {
  if (path === '/') return { segments: [] };
  if (!path.startsWith('/')) return { problem: "path: must begin with '/'" };
  const stray = STRAY_CHARACTER.exec(path)?.[0];
  if (stray !== undefined)
    return { problem: `path: holds ${STRAY_CHARACTER_NAMES[stray] ?? 'a character outside printable ASCII'}; percent-encode it` };
  const raw = path.slice(1).split('/');
  const segments: string[] = [];
  for (const [index, spelled] of raw.entries()) {
    const position = `path: segment ${index + 1}`;
    if (spelled.length === 0) return { problem: `${position} is empty (a doubled '/' or a '/' at the end)` };
    const segment = decodedSegment(spelled);
    if (segment === undefined) return { problem: `${position} holds a percent escape that is not UTF-8` };
    if (segment === '.' || segment === '..') return { problem: `${position} is a dot segment ('.' or '..', in any spelling)` };
    segments.push(segment);
  }
  return { segments };
}

/** The one spelling of decoded `segments`: each percent-encoded as a URI component, joined by `/`. */
export function canonicalPathOf(segments: readonly string[]): string {
  return `/${segments.map(encodeURIComponent).join('/')}`;
}

function decodedSegment(spelled: string): string | undefined {
  if (!spelled.includes('%')) return spelled;
  try {
    return decodeURIComponent(spelled);
  } catch {
    return undefined;
  }
}
