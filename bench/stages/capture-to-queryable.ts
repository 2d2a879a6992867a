import { randomUUID } from 'node:crypto';
import { atMost, type Figure } from '../report';
import { delay, elapsedSince } from '../support/clock';
import type { BenchAccount } from '../support/guidepost-client';
import { generateLoad, type LoadResult } from '../support/load-generator';
import { count } from '../units';

/** docs/performance.md: at half of the measured track capacity, p95 under 1 s and p99 under 2 s. */
const P95_TARGET_MS = 1_000;
const P99_TARGET_MS = 2_000;
/** How often a prober asks for its user's history: the resolution of each measured time. */
const POLL_INTERVAL_MS = 50;
/** Probers measuring side by side, each waiting for its event before sending the next. */
const PROBERS = 2;
/** A probe not queryable after this long counts as this long (and is named in the figure). */
const PROBE_TIMEOUT_MS = 30_000;
const BACKGROUND_CONNECTIONS = 50;

export interface CaptureSettings {
  readonly stage: string;
  readonly account: BenchAccount;
  /** Track requests per second the deployment served at best in this run: the background load gets half. */
  readonly capacityPerSecond: number;
  readonly durationSeconds: number;
  /** The tracked body of the background load (one realistic event per request). */
  readonly backgroundBody: string;
  readonly trackUrl: (userId: string) => string;
}

export interface CaptureRun {
  readonly figures: Figure[];
  /** The background load, for the no-loss check of the track stage. */
  readonly background: { readonly userId: string; readonly result: LoadResult };
}

/**
 * Capture to queryable: while a background load tracks events at half of the measured capacity,
 * probers track one marked event at a time and poll the user's history until it shows; the time from
 * sending the track request to the first history answer holding it is one sample.
 */
export async function measureCaptureToQueryable(settings: CaptureSettings): Promise<CaptureRun> {
  const rate = Math.max(1, Math.round(settings.capacityPerSecond / 2));
  const backgroundUser = 'bench-capture-background';
  const stopAt = performance.now() + settings.durationSeconds * 1000;
  const [result, ...samples] = await Promise.all([
    generateLoad({
      url: settings.trackUrl(backgroundUser),
      connections: BACKGROUND_CONNECTIONS,
      durationSeconds: settings.durationSeconds,
      overallRate: rate,
      headers: { 'Content-Type': 'application/json', Authorization: settings.account.authorization },
      body: settings.backgroundBody,
    }),
    ...Array.from({ length: PROBERS }, (_, prober) => probeUntil(settings, `bench-capture-probe-${prober}`, stopAt)),
  ]);
  const latencies = samples.flat().sort((a, b) => a - b);
  return { figures: [captureFigure(settings.stage, rate, result, latencies)], background: { userId: backgroundUser, result } };
}

/** Sequential probes of one user until `stopAt`: the capture-to-queryable time of each, in milliseconds. */
async function probeUntil(settings: CaptureSettings, userId: string, stopAt: number): Promise<number[]> {
  const latencies: number[] = [];
  while (performance.now() < stopAt) latencies.push(await probe(settings, userId));
  return latencies;
}

async function probe(settings: CaptureSettings, userId: string): Promise<number> {
  const probeId = randomUUID();
  const sent = performance.now();
  const response = await fetch(settings.trackUrl(userId), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: settings.account.authorization },
    body: JSON.stringify({ name: 'bench_capture_probe', timestamp: new Date().toISOString(), attributes: { probe_id: probeId } }),
  });
  const answer = await response.text();
  if (response.status !== 200) throw new Error(`probe ${probeId}: track answered ${response.status}: ${answer.slice(0, 300)}`);
  while (elapsedSince(sent) < PROBE_TIMEOUT_MS) {
    if (await historyHolds(settings, userId, probeId)) return elapsedSince(sent);
    await delay(POLL_INTERVAL_MS);
  }
  return PROBE_TIMEOUT_MS;
}

async function historyHolds(settings: CaptureSettings, userId: string, probeId: string): Promise<boolean> {
  const response = await fetch(settings.trackUrl(userId), {
    headers: { authorization: settings.account.authorization, accept: 'application/json' },
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`history of ${userId}: ${response.status}: ${text.slice(0, 300)}`);
  const events = JSON.parse(text) as { attributes?: { probe_id?: unknown } }[];
  return events.some((event) => event.attributes?.probe_id === probeId);
}

function captureFigure(stage: string, rate: number, background: LoadResult, latencies: readonly number[]): Figure {
  const p95 = percentile(latencies, 0.95);
  const p99 = percentile(latencies, 0.99);
  const timedOut = latencies.filter((latency) => latency >= PROBE_TIMEOUT_MS).length;
  const served = count(background.succeeded / background.durationSeconds);
  return {
    stage,
    figure: `capture to queryable, ${latencies.length} probes, background load ${served} req/s (half of capacity: ${count(rate)})`,
    measured:
      `p50 ${Math.round(percentile(latencies, 0.5))} ms, p95 ${Math.round(p95)} ms, p99 ${Math.round(p99)} ms` +
      (timedOut > 0 ? ` (${timedOut} not queryable within ${PROBE_TIMEOUT_MS / 1000} s)` : ''),
    target: {
      target: `p95 ${atMost(p95, P95_TARGET_MS, ms).target}, p99 ${atMost(p99, P99_TARGET_MS, ms).target}`,
      met: p95 < P95_TARGET_MS && p99 < P99_TARGET_MS,
    },
  };
}

/** Nearest-rank percentile of sorted samples (NaN when there are none). */
function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

function ms(value: number): string {
  return `${count(value)} ms`;
}
