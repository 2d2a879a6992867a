/** Words of PromQL that look like metric names but are not. */
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression reads, so that a test can check each exists in what Prometheus
 * scraped. Strings, label matchers, ranges and the label lists of `by`, `on` and their kin are removed
 * first; of the identifiers left, those called like functions (`rate(`) and the keywords are not metrics.
 */
export function metricNamesOf(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const word = match[0];
    const calledLikeAFunction = /^\s*\(/.test(bare.slice((match.index ?? 0) + word.length));
    const partOfNumber = match.index !== undefined && match.index > 0 && /[0-9.]/.test(bare[match.index - 1]);
    if (!calledLikeAFunction && !partOfNumber && !KEYWORDS.has(word.toLowerCase())) names.add(word);
  }
  return [...names].sort();
}
