import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

/**
 * Realistic event import rows, the same for every run: row `n` is a function of `n` alone, so two
 * runs (or two machines) parse and store exactly the same data. The mix imitates what a product
 * records: page views, flow and checklist progress, NPS answers with free text (commas and quotes,
 * so the CSV has quoted cells) and click-to-track events, over 50 000 users. 10 M rows span 87 days,
 * so that one analytics query (at most 90 days) reads them all.
 */
export interface EventRow {
  readonly user_id: string;
  readonly name: string;
  readonly timestamp: string;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  readonly context: { readonly url: string };
}

const USERS = 50_000;
const FIRST_TIMESTAMP_MS = Date.UTC(2025, 5, 1);
const MEAN_GAP_MS = 750;
const PAGES = ['/home', '/settings/billing', '/reports/weekly?range=30d', '/projects/42/board', '/onboarding/step-2'];
const PLANS = ['free', 'starter', 'pro', 'enterprise'];
const FEEDBACK = ['Great, thanks!', 'Too slow, "export" takes ages', 'Missing: dark mode, keyboard shortcuts', 'ok'];

export function eventRow(index: number): EventRow {
  const random = seededRandom(index);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const common = {
    user_id: `user-${String(Math.floor(random() * USERS)).padStart(6, '0')}`,
    timestamp: new Date(FIRST_TIMESTAMP_MS + index * MEAN_GAP_MS + Math.floor(random() * MEAN_GAP_MS)).toISOString(),
    context: { url: `https://app.example.com${pick(PAGES)}` },
  };
  const kind = random();
  if (kind < 0.35) return { ...common, name: 'svc:page_view', attributes: { plan: pick(PLANS), session_id: sessionOf(random) } };
  if (kind < 0.65) {
    const attributes = { flow_id: `flow-${Math.floor(random() * 40)}`, step: 1 + Math.floor(random() * 8), plan: pick(PLANS) };
    return { ...common, name: 'flow_step_completed', attributes };
  }
  if (kind < 0.8) {
    const attributes = {
      checklist_id: `checklist-${Math.floor(random() * 12)}`,
      item: 1 + Math.floor(random() * 6),
      completed: random() < 0.7,
    };
    return { ...common, name: 'checklist_item_completed', attributes };
  }
  if (kind < 0.9) {
    const attributes = { nps_score: Math.floor(random() * 11), nps_feedback: pick(FEEDBACK), plan: pick(PLANS) };
    return { ...common, name: 'nps_submitted', attributes };
  }
  return { ...common, name: 'svc_custom:upgrade_clicked', attributes: { plan: pick(PLANS), price: 9.99 + Math.floor(random() * 90) } };
}

/** Every attribute key the rows use: the CSV has one `attributes.<key>` column per key (empty when absent). */
const ATTRIBUTE_KEYS = ['checklist_id', 'completed', 'flow_id', 'item', 'nps_feedback', 'nps_score', 'plan', 'price', 'session_id', 'step'];

export const CSV_HEADER = ['user_id', 'name', 'timestamp', ...ATTRIBUTE_KEYS.map((key) => `attributes.${key}`), 'context.url'].join(',');

export function ndjsonLine(row: EventRow): string {
  return JSON.stringify(row);
}

export function csvLine(row: EventRow): string {
  const attributes = ATTRIBUTE_KEYS.map((key) => csvCell(row.attributes[key]));
  return [csvCell(row.user_id), csvCell(row.name), row.timestamp, ...attributes, csvCell(row.context.url)].join(',');
}

function csvCell(value: string | number | boolean | undefined): string {
  if (value === undefined) return '';
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** What a generated document holds. */
export interface GeneratedLines {
  readonly bytes: number;
  readonly rows: number;
}

const LINES_PER_WRITE = 10_000;

/**
 * Writes NDJSON rows from row `first` on to `path` until the next line would pass `maxBytes` or `maxRows`
 * rows are written, whichever comes first.
 */
export async function writeNdjsonFile(
  path: string,
  first: number,
  limits: { maxBytes: number; maxRows?: number },
): Promise<GeneratedLines> {
  const file = createWriteStream(path);
  const generated = { bytes: 0, rows: 0 };
  const maxRows = limits.maxRows ?? Number.POSITIVE_INFINITY;
  let full = false;
  while (!full) {
    const lines: string[] = [];
    for (let taken = 0; taken < LINES_PER_WRITE && generated.rows < maxRows; taken += 1) {
      const line = `${ndjsonLine(eventRow(first + generated.rows))}\n`;
      if (generated.bytes + line.length > limits.maxBytes) break;
      lines.push(line);
      generated.bytes += line.length;
      generated.rows += 1;
    }
    full = lines.length < LINES_PER_WRITE;
    if (!file.write(lines.join(''))) await once(file, 'drain');
  }
  file.end();
  await once(file, 'finish');
  return generated;
}

/** The NDJSON and CSV text of the same rows, the NDJSON about `ndjsonBytes` long. */
export function generateDocuments(ndjsonBytes: number): { ndjson: string; csv: string; rows: number } {
  const ndjson: string[] = [];
  const csv: string[] = [CSV_HEADER];
  let bytes = 0;
  for (let index = 0; bytes < ndjsonBytes; index += 1) {
    const row = eventRow(index);
    const line = ndjsonLine(row);
    ndjson.push(line);
    csv.push(csvLine(row));
    bytes += line.length + 1;
  }
  return { ndjson: `${ndjson.join('\n')}\n`, csv: `${csv.join('\n')}\n`, rows: ndjson.length };
}

function sessionOf(random: () => number): string {
  return Math.floor(random() * 0xffffffff)
    .toString(16)
    .padStart(8, '0');
}

/** mulberry32: a tiny, fast PRNG, good enough to vary data and fully determined by its seed. */
function seededRandom(seed: number): () => number {
  let state = (seed * 0x9e3779b9) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}
