/**
 * Whether an `Accept` header asks for CSV rather than JSON: `text/csv` must be listed explicitly with
 * a higher quality than `application/json` (ties go to the one listed first). Wildcards, an absent
 * header and anything else mean JSON.
 */
export function prefersCsv(accept: string | undefined): boolean {
  if (accept === undefined || !accept.includes('text/csv')) return false;
  let csv: number | undefined;
  let json: number | undefined;
  for (const range of accept.split(',')) {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    const quality = qualityOf(parameters);
    if (type === 'text/csv' && csv === undefined) csv = quality;
    if (type === 'application/json' && json === undefined) json = quality;
  }
  if (csv === undefined || csv === 0) return false;
  if (json === undefined) return true;
  return csv > json || (csv === json && accept.indexOf('text/csv') < accept.indexOf('application/json'));
}

function qualityOf(parameters: readonly string[]): number {
  const q = parameters.find((parameter) => parameter.startsWith('q='));
  const value = q === undefined ? 1 : Number(q.slice(2));
  return Number.isFinite(value) ? value : 0;
}
