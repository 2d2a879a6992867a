import { fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { ndjsonValues } from '@guidepost/platform-http';
import type { TrackSettings } from '../config';
import { atMost, failedFigure, ratioAtLeast, type Figure } from '../report';
import { delay, settlesWithin } from '../support/clock';
import { measureCaptureToQueryable } from './capture-to-queryable';
import { BenchAccount, completedAttributes, downloadStream } from '../support/guidepost-client';
import { stageOfShape, type Deployment, type Shape } from '../support/deployment';
import { generateLoad, type LoadResult } from '../support/load-generator';
import { cpuNow, cpuSince, type ProcessCpu } from '../support/process-cpu';
import { count } from '../units';

export const TRACK_STAGE = '1 track';
/** docs/performance.md: Guidepost's track endpoint at least 35 % of a bare node:http server standalone, 20 % through the gateway. */
const TARGET_RATIO: Readonly<Record<Shape, number>> = { standalone: 0.35, distributed: 0.2 };
/** docs/performance.md: at most 0.3 ms of CPU per acknowledged event, summed over every process of the distributed shape. */
const DISTRIBUTED_CPU_TARGET_MS = 0.3;
/** Tracked events appear in the store within seconds (docs/api-contract.md#events); the check waits this long at most. */
const STORED_TIMEOUT_MS = 120_000;
const STORED_POLL_INTERVAL_MS = 5_000;
const EXPORT_TIMEOUT_MS = 600_000;

/** A realistic tracked event (a `TrackEvent`); `[<id>]` makes each request's body (and event) distinct. */
const TRACK_BODY = {
  name: 'flow_step_completed',
  timestamp: '2025-06-01T12:00:00.000-04:00',
  attributes: { flow_id: 'flow-7', step: 3, request_id: '[<id>]', _identity: { email: 'ada@example.com' } },
  context: { url: 'https://app.example.com/projects/42/board' },
};

/** One load run against Guidepost, remembered for the no-loss check: its user got only its events. */
interface TrackRun {
  readonly userId: string;
  readonly result: LoadResult;
}

/**
 * Requests per second and latency of `POST /users/{u}/events` (each acknowledged only once durable)
 * beside a bare node:http server answering the same request, at each connection count, and the CPU
 * time every process of the deployment spent per acknowledged event over the measured runs; then
 * capture to queryable at half of the best rate measured, and a check that every acknowledged event
 * is in the store.
 */
export async function measureTrack(deployment: Deployment, settings: TrackSettings): Promise<Figure[]> {
  const stage = stageOfShape(TRACK_STAGE, deployment.shape);
  const account = await BenchAccount.create(deployment, 'bench track');
  const bare = await startBareServer();
  const figures: Figure[] = [];
  const runs: TrackRun[] = [];
  try {
    const load = (url: string, connections: number, durationSeconds: number) => trackLoad(account, url, connections, durationSeconds);
    const guidepostUrl = (userId: string) => account.url(trackPath(userId));
    const bareUrl = (userId: string) => `${bare.baseUrl}/v2/accounts/${account.id}${trackPath(userId)}`;
    const warmupConnections = Math.max(...settings.connections);
    runs.push({ userId: 'bench-warmup', result: await load(guidepostUrl('bench-warmup'), warmupConnections, settings.warmupSeconds) });
    await load(bareUrl('bench-warmup'), warmupConnections, settings.warmupSeconds);
    // From the first measured run to the end of the last: the bare server's runs in between let the
    // deployment catch up on work the acknowledged events left (sinks, consumers), which counts too.
    const cpuBefore = cpuNow(deployment.processes);
    let acknowledged = 0;
    let capacityPerSecond = 0;
    for (const connections of settings.connections) {
      const userId = `bench-c${connections}`;
      const guidepost = await load(guidepostUrl(userId), connections, settings.durationSeconds);
      runs.push({ userId, result: guidepost });
      acknowledged += guidepost.succeeded;
      capacityPerSecond = Math.max(capacityPerSecond, guidepost.succeeded / guidepost.durationSeconds);
      const baseline = await load(bareUrl(userId), connections, settings.durationSeconds);
      figures.push(throughputFigure(stage, deployment.shape, connections, guidepost, baseline));
    }
    figures.push(...cpuFigures(stage, deployment.shape, cpuSince(cpuBefore, deployment.processes), acknowledged));
    try {
      const capture = await measureCaptureToQueryable({
        stage,
        account,
        capacityPerSecond,
        durationSeconds: 2 * settings.durationSeconds,
        backgroundBody: JSON.stringify(TRACK_BODY),
        trackUrl: guidepostUrl,
      });
      figures.push(...capture.figures);
      runs.push(capture.background);
    } catch (error) {
      figures.push(failedFigure(stage, 'capture to queryable', error));
    }
  } finally {
    await bare.stop();
  }
  figures.push(
    await storedEventsFigure(stage, account, runs).catch((error: unknown) => failedFigure(stage, 'acknowledged events are stored', error)),
  );
  return figures;
}

/** The path of the track endpoint for one user, below `/v2/accounts/{a}`. */
export function trackPath(userId: string): string {
  return `/users/${userId}/events`;
}

/** A load run of realistic tracked events, authorised as the account, to `url` (Guidepost's track endpoint or the bare server's). */
export function trackLoad(account: BenchAccount, url: string, connections: number, durationSeconds: number): Promise<LoadResult> {
  return generateLoad({
    url,
    connections,
    durationSeconds,
    headers: { 'Content-Type': 'application/json', Authorization: account.authorization },
    body: JSON.stringify(TRACK_BODY),
  });
}

function throughputFigure(stage: string, shape: Shape, connections: number, guidepost: LoadResult, baseline: LoadResult): Figure {
  const guidepostRate = guidepost.succeeded / guidepost.durationSeconds;
  const baselineRate = baseline.succeeded / baseline.durationSeconds;
  const ratio = guidepostRate / baselineRate;
  return {
    stage,
    figure: `POST /users/{u}/events, ${connections} connections`,
    measured: describeLoad(guidepost),
    baseline: `bare node:http: ${describeLoad(baseline)}`,
    ratio,
    target: ratioAtLeast(ratio, TARGET_RATIO[shape]),
  };
}

/**
 * CPU time per acknowledged event: one line per process (and one for its child processes when it
 * has any, such as PostgreSQL backends), then the total over all of them.
 */
function cpuFigures(stage: string, shape: Shape, spent: readonly ProcessCpu[], acknowledged: number): Figure[] {
  const perEvent = (milliseconds: number): string => `${(milliseconds / Math.max(acknowledged, 1)).toFixed(3)} ms`;
  const line = (name: string, milliseconds: number): Figure => ({
    stage,
    figure: `CPU per acknowledged event, ${name}`,
    measured: `${perEvent(milliseconds)} (${count(milliseconds)} ms CPU)`,
  });
  const lines = spent.flatMap(({ process, ownMs, childrenMs }) => [
    line(process.name, ownMs),
    ...(childrenMs > 0 ? [line(`${process.name}: child processes`, childrenMs)] : []),
  ]);
  const sumOf = (processes: readonly ProcessCpu[]): number => processes.reduce((sum, { ownMs, childrenMs }) => sum + ownMs + childrenMs, 0);
  const guidepost = spent.filter(({ process }) => !process.server);
  const totalMs = sumOf(spent);
  const total: Figure = {
    stage,
    figure: 'CPU per acknowledged event, all processes and their children',
    measured: `${perEvent(totalMs)} (${count(totalMs)} ms CPU over ${count(acknowledged)} events)`,
    target:
      shape === 'distributed' ? atMost(totalMs / Math.max(acknowledged, 1), DISTRIBUTED_CPU_TARGET_MS, (ms) => `${ms} ms`) : undefined,
  };
  // The servers are shared with whatever else uses them meanwhile: Guidepost's own part on its own line.
  const ownTotal: Figure[] =
    guidepost.length < spent.length
      ? [line(`total of Guidepost's ${guidepost.length} processes (without the servers)`, sumOf(guidepost))]
      : [];
  return [...lines, ...ownTotal, total];
}

function describeLoad(result: LoadResult): string {
  const rate = `${count(result.succeeded / result.durationSeconds)} req/s (p50 ${result.latencyP50Ms} ms, p99 ${result.latencyP99Ms} ms)`;
  return result.failed > 0 ? `${rate}, ${count(result.failed)} failed` : rate;
}

/**
 * Waits until the store holds at least every acknowledged event of each run's user, then checks
 * `acknowledged <= stored <= sent` per user (a request cut off at the end of a run may still have
 * been stored; one acknowledged but missing is data loss). Counted through the public export.
 */
async function storedEventsFigure(stage: string, account: BenchAccount, runs: readonly TrackRun[]): Promise<Figure> {
  const deadline = performance.now() + STORED_TIMEOUT_MS;
  let stored = await storedEventsPerUser(account);
  while (!runs.every((run) => (stored.get(run.userId) ?? 0) >= run.result.succeeded) && performance.now() < deadline) {
    await delay(STORED_POLL_INTERVAL_MS);
    stored = await storedEventsPerUser(account);
  }
  const acknowledged = runs.reduce((sum, run) => sum + run.result.succeeded, 0);
  const sent = runs.reduce((sum, run) => sum + run.result.sent, 0);
  const storedTotal = runs.reduce((sum, run) => sum + (stored.get(run.userId) ?? 0), 0);
  const consistent = runs.every((run) => {
    const storedOfRun = stored.get(run.userId) ?? 0;
    return storedOfRun >= run.result.succeeded && storedOfRun <= run.result.sent;
  });
  return {
    stage,
    figure: `acknowledged events are stored (${runs.length} users)`,
    measured:
      `${count(storedTotal)} stored, ${count(acknowledged)} acknowledged, ${count(sent)} sent` +
      (consistent ? '' : ` (${describeMismatch(runs, stored)})`),
    target: { target: 'acknowledged <= stored <= sent', met: consistent },
  };
}

function describeMismatch(runs: readonly TrackRun[], stored: ReadonlyMap<string, number>): string {
  return runs
    .map((run) => `${run.userId}: ${stored.get(run.userId) ?? 0} stored of ${run.result.succeeded} acknowledged (${run.result.sent} sent)`)
    .join('; ');
}

/** Exports all of the account's events and counts them by user. */
async function storedEventsPerUser(account: BenchAccount): Promise<Map<string, number>> {
  const acknowledgement = await account.exportEvents({ format: 'json', conditions: [], start_time: 0 });
  const job = await account.finishedJob(acknowledgement.job_id, EXPORT_TIMEOUT_MS);
  const url = completedAttributes(job)['signed_s3_url'];
  if (typeof url !== 'string') throw new Error(`export job ${job.id}: Completed carries no signed_s3_url`);
  const perUser = new Map<string, number>();
  for await (const { value } of ndjsonValues(await downloadStream(url))) {
    const userId = (value as { user_id?: unknown }).user_id;
    if (typeof userId === 'string') perUser.set(userId, (perUser.get(userId) ?? 0) + 1);
  }
  return perUser;
}

interface BareServer {
  readonly baseUrl: string;
  stop(): Promise<void>;
}

/** Forks bare-http-server.js (compiled beside this file) and waits for the port it listens on. */
async function startBareServer(): Promise<BareServer> {
  const child = fork(join(__dirname, 'bare-http-server.js'), [], { stdio: 'inherit' });
  const [message] = (await once(child, 'message')) as [{ port: number }];
  return {
    baseUrl: `http://127.0.0.1:${message.port}`,
    async stop() {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      if (!(await settlesWithin(exited, 5_000))) child.kill('SIGKILL');
    },
  };
}
