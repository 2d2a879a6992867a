import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

/**
 * Realistic event import rows, the same for every run: row `n` is a function of `n` alone, so two
 * runs (or two machines) parse and store exactly the same data. The mix imitates what a product
 * records, the Appcues events shaped as its SDKs send them (camelCase keys: the web SDK's flow and
 * step events with `flowId` and `stepId`, NPS answers with `score` and free text (commas and quotes, so
 * the CSV has quoted cells), the mobile SDKs' Flows 2.0 step events with `experienceId`), beside page
 * views, checklist progress and click-to-track events, over 50 000 users. 10 M rows span 87 days, so
 * that one analytics query (at most 90 days) reads them all. Attributes are flat, so that the CSV
 * holds them all.
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
/**
 * The 90 days (an analytics query's longest window) from the first generated event's day: they hold
 * every event of the first 10 M rows, as dates of `POST /analytics/query` (the end date counts).
 */
export const GENERATED_EVENTS_WINDOW = { start_time: '2025-06-01', end_time: '2025-08-29' };
const MEAN_GAP_MS = 750;
const PAGES = ['/home', '/settings/billing', '/reports/weekly?range=30d', '/projects/42/board', '/onboarding/step-2'];
const PLANS = ['free', 'starter', 'pro', 'enterprise'];
const FEEDBACK = ['Great, thanks!', 'Too slow, "export" takes ages', 'Missing: dark mode, keyboard shortcuts', 'ok'];
/** The web SDK's flow events, most often the step events, as a flow's users go through it. */
const FLOW_EVENTS = [
  ...Array<string>(5).fill('appcues:flow_started'),
  ...Array<string>(6).fill('appcues:step_started'),
  ...Array<string>(6).fill('appcues:step_completed'),
  ...Array<string>(3).fill('appcues:flow_completed'),
  'appcues:flow_skipped',
  'appcues:step_error',
];
const STEP_ERRORS = ['Target element not found', 'Timed out waiting for the page'];
/** The surveys the NPS answers are for, by flow id. */
const NPS_SURVEYS = ['nps-quarterly', 'nps-onboarding'];
const MOBILE_STEP_EVENTS = ['appcues:v2:step_seen', 'appcues:v2:step_seen', 'appcues:v2:step_completed', 'appcues:v2:step_error'];

export function eventRow(index: number): EventRow {
  const random = seededRandom(index);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const common = {
    user_id: `user-${String(Math.floor(random() * USERS)).padStart(6, '0')}`,
    timestamp: new Date(FIRST_TIMESTAMP_MS + index * MEAN_GAP_MS + Math.floor(random() * MEAN_GAP_MS)).toISOString(),
    context: { url: `https://app.example.com${pick(PAGES)}` },
  };
  const kind = random();
  if (kind < 0.35) return { ...common, name: 'svc:page_view', attributes: { plan: pick(PLANS), sessionId: sessionOf(random) } };
  if (kind < 0.65) return { ...common, ...webFlowEvent(random, pick) };
  if (kind < 0.8) {
    const attributes = { checklistId: `checklist-${Math.floor(random() * 12)}`, itemId: `item-${1 + Math.floor(random() * 6)}` };
    return { ...common, name: 'appcues:checklist_item_completed', attributes };
  }
  if (kind < 0.9) return { ...common, ...npsAnswer(random, pick) };
  if (kind < 0.95) return { ...common, ...mobileStepEvent(random, pick) };
  return { ...common, name: 'svc_custom:upgrade_clicked', attributes: { plan: pick(PLANS), price: 9.99 + Math.floor(random() * 90) } };
}

/** Picks one of the items at random. */
type Chooser = <T>(items: readonly T[]) => T;
/** What sets an event's kind apart: its name and attributes. */
type Shaped = Pick<EventRow, 'name' | 'attributes'>;

/** A classic web flow or step event of one of 40 flows: flow events carry no step. */
function webFlowEvent(random: () => number, pick: Chooser): Shaped {
  const name = pick(FLOW_EVENTS);
  const flowNumber = Math.floor(random() * 40);
  const flow = {
    flowId: `flow-${flowNumber}`,
    flowName: `Flow ${flowNumber}`,
    flowType: 'journey',
    flowVersion: 1_748_736_000_000 + flowNumber,
  };
  if (!name.startsWith('appcues:step_')) return { name, attributes: flow };
  const step = { stepId: `step-${1 + Math.floor(random() * 8)}`, stepType: 'modal' };
  return { name, attributes: name === 'appcues:step_error' ? { ...flow, ...step, message: pick(STEP_ERRORS) } : { ...flow, ...step } };
}

/** An NPS answer of one of the surveys: a score, or (one in three) the free text that follows it. */
function npsAnswer(random: () => number, pick: Chooser): Shaped {
  const flowId = pick(NPS_SURVEYS);
  if (random() < 1 / 3) return { name: 'appcues:nps_feedback', attributes: { flowId, feedback: pick(FEEDBACK) } };
  return { name: 'appcues:nps_score', attributes: { flowId, score: Math.floor(random() * 11) } };
}

/** A mobile SDK's Flows 2.0 step event of one of 8 experiences; errors carry a message. */
function mobileStepEvent(random: () => number, pick: Chooser): Shaped {
  const name = pick(MOBILE_STEP_EVENTS);
  const attributes = {
    experienceId: `experience-${Math.floor(random() * 8)}`,
    experienceType: 'mobile',
    stepId: `step-${Math.floor(random() * 4)}`,
    stepType: 'modal',
  };
  return { name, attributes: name === 'appcues:v2:step_error' ? { ...attributes, message: pick(STEP_ERRORS) } : attributes };
}

/** Every attribute key the rows use: the CSV has one `attributes.<key>` column per key (empty when absent). */
const ATTRIBUTE_KEYS = [
  'checklistId',
  'experienceId',
  'experienceType',
  'feedback',
  'flowId',
  'flowName',
  'flowType',
  'flowVersion',
  'itemId',
  'message',
  'plan',
  'price',
  'score',
  'sessionId',
  'stepId',
  'stepType',
];

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
