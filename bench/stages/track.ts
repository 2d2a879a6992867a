import { fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { ndjsonValues } from '@guidepost/platform-http';
import type { TrackSettings } from '../config';
import { atMost, failedFigure, ratioAtLeast, type Figure } from '../report';
import { delay, settlesWithin } from '../support/clock';
import { measureCaptureToQueryable } from './capture-to-queryable';
import { BenchAccount, completedAttributes, downloadStream } from '../support/guidepost-client';
import { stageOfShape, type Deployment, type KafkaPlace, type Shape } from '../support/deployment';
import { generateLoad, type LoadResult } from '../support/load-generator';
import { cpuNow, cpuSince, type ProcessCpu } from '../support/process-cpu';
import type { NamedProcess } from '../support/process-tree';
import type { ReferenceIntakeSettings } from './reference-intake-server';
import { count } from '../units';

export const TRACK_STAGE = '1 track';
/**
 * docs/performance.md: Guidepost's track endpoint standalone at least 35 % of a bare node:http server;
 * through the distributed gateway at least 50 % of the reference front door on the same broker.
 */
const TARGET_RATIO: Readonly<Record<Shape, number>> = { standalone: 0.35, distributed: 0.5 };
/** docs/performance.md: CPU per acknowledged event of the distributed shape, over Guidepost's own processes above their idle cost. */
const DISTRIBUTED_OWN_CPU_TARGET_MS = 0.35;
/** docs/performance.md: the same over every process, the servers (Kafka, the store) included. */
const DISTRIBUTED_ALL_CPU_TARGET_MS = 0.6;
/** How long Guidepost's processes are watched with no load, for what they cost whatever they handle. */
const IDLE_MS = 5_000;
/** Tracked events appear in the store within seconds (docs/api-contract.md#events); the check waits this long at most. */
const STORED_TIMEOUT_MS = 120_000;
const STORED_POLL_INTERVAL_MS = 5_000;
const EXPORT_TIMEOUT_MS = 600_000;

/**
 * A realistic tracked event (a `TrackEvent`); `[<id>]` makes each request's body (and event) distinct,
 * and `[<now>]` stamps it with the time it is sent, as clients do (events of a user differ in time).
 */
const TRACK_BODY = {
  name: 'flow_step_completed',
  timestamp: '[<now>]',
  attributes: { flow_id: 'flow-7', step: 3, request_id: '[<id>]', _identity: { email: 'ada@example.com' } },
  context: { url: 'https://app.example.com/projects/42/board' },
};

/** One load run against Guidepost, remembered for the no-loss check: its user got only its events. */
interface TrackRun {
  readonly userId: string;
  readonly result: LoadResult;
}

/** The runs of one connection count: Guidepost's and its baselines'. */
interface ConnectionRuns {
  readonly connections: number;
  readonly guidepost: LoadResult;
  readonly bare: LoadResult;
  reference?: LoadResult;
}

/**
 * Requests per second and latency of `POST /users/{u}/events` (each acknowledged only once durable)
 * beside a bare node:http server answering the same request and, where the deployment has a broker,
 * a reference front door producing to it, at each connection count; the CPU time every process of
 * the deployment spent per acknowledged event over the measured runs; then capture to queryable at
 * half of the best rate measured, and a check that every acknowledged event is in the store.
 */
export async function measureTrack(deployment: Deployment, settings: TrackSettings): Promise<Figure[]> {
  const stage = stageOfShape(TRACK_STAGE, deployment.shape);
  const account = await BenchAccount.create(deployment, 'bench track');
  const bare = await startChildServer('bare-http-server.js');
  const figures: Figure[] = [];
  const runs: TrackRun[] = [];
  let reference: ChildServer | undefined;
  try {
    reference = deployment.kafka && (await startReferenceIntake(deployment.kafka, account));
    const load = (url: string, connections: number, durationSeconds: number) => trackLoad(account, url, connections, durationSeconds);
    const guidepostUrl = (userId: string) => account.url(trackPath(userId));
    const serverUrl = (server: ChildServer, userId: string) => `${server.baseUrl}/v2/accounts/${account.id}${trackPath(userId)}`;
    const ownProcesses = deployment.processes.filter((named) => !named.server);
    const idleCpuMsPerSecond = await idleCpuRate(ownProcesses);
    const warmupConnections = Math.max(...settings.connections);
    runs.push({ userId: 'bench-warmup', result: await load(guidepostUrl('bench-warmup'), warmupConnections, settings.warmupSeconds) });
    await load(serverUrl(bare, 'bench-warmup'), warmupConnections, settings.warmupSeconds);
    // From the first measured run to the end of the last: the bare server's runs in between let the
    // deployment catch up on work the acknowledged events left (sinks, consumers), which counts too.
    // The reference runs come after, so that their produce requests stay out of the broker's figure.
    const cpuBefore = cpuNow(deployment.processes);
    const measuredFrom = performance.now();
    const measured: ConnectionRuns[] = [];
    for (const connections of settings.connections) {
      const userId = `bench-c${connections}`;
      const guidepost = await load(guidepostUrl(userId), connections, settings.durationSeconds);
      runs.push({ userId, result: guidepost });
      measured.push({ connections, guidepost, bare: await load(serverUrl(bare, userId), connections, settings.durationSeconds) });
    }
    const spent = cpuSince(cpuBefore, deployment.processes);
    const idleCpuMs = (idleCpuMsPerSecond * (performance.now() - measuredFrom)) / 1000;
    if (reference) {
      const server = reference;
      const cpuOfReference = referenceProcesses(server, deployment.kafka);
      await load(serverUrl(server, 'bench-warmup'), warmupConnections, settings.warmupSeconds);
      const referenceCpuBefore = cpuNow(cpuOfReference);
      for (const connectionRuns of measured)
        connectionRuns.reference = await load(
          serverUrl(server, `bench-c${connectionRuns.connections}`),
          connectionRuns.connections,
          settings.durationSeconds,
        );
      const referenceAcknowledged = measured.reduce((sum, { reference: run }) => sum + (run?.succeeded ?? 0), 0);
      figures.push(...referenceCpuFigures(stage, cpuSince(referenceCpuBefore, cpuOfReference), referenceAcknowledged));
    }
    figures.push(...measured.flatMap((connectionRuns) => throughputFigures(stage, deployment.shape, connectionRuns)));
    const acknowledged = measured.reduce((sum, { guidepost }) => sum + guidepost.succeeded, 0);
    figures.push(...cpuFigures(stage, deployment.shape, spent, acknowledged, idleCpuMs));
    try {
      const capacityPerSecond = Math.max(...measured.map(({ guidepost }) => guidepost.succeeded / guidepost.durationSeconds));
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
    await Promise.all([bare.stop(), reference?.stop()]);
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

/**
 * Guidepost against its baseline: the bare server standalone, the reference front door distributed
 * (with the reference's own share of the bare server beside it).
 */
function throughputFigures(stage: string, shape: Shape, runs: ConnectionRuns): Figure[] {
  const figure = `POST /users/{u}/events, ${runs.connections} connections`;
  if (shape === 'standalone' || runs.reference === undefined) {
    const ratio = rateOf(runs.guidepost) / rateOf(runs.bare);
    return [
      {
        stage,
        figure,
        measured: describeLoad(runs.guidepost),
        baseline: `bare node:http: ${describeLoad(runs.bare)}`,
        ratio,
        target: shape === 'standalone' ? ratioAtLeast(ratio, TARGET_RATIO.standalone) : undefined,
      },
    ];
  }
  const ratio = rateOf(runs.guidepost) / rateOf(runs.reference);
  return [
    {
      stage,
      figure,
      measured: describeLoad(runs.guidepost),
      baseline: `reference front door: ${describeLoad(runs.reference)}`,
      ratio,
      target: ratioAtLeast(ratio, TARGET_RATIO.distributed),
    },
    {
      stage,
      figure: `reference front door, ${runs.connections} connections`,
      measured: describeLoad(runs.reference),
      baseline: `bare node:http: ${describeLoad(runs.bare)}`,
      ratio: rateOf(runs.reference) / rateOf(runs.bare),
    },
  ];
}

function rateOf(result: LoadResult): number {
  return result.succeeded / result.durationSeconds;
}

/**
 * CPU time per acknowledged event: one line per process (and one for its child processes when it
 * has any, such as PostgreSQL backends), Guidepost's own total and the same above what its processes
 * spend idle (`idleCpuMs` over the measured window), then the total over all of them.
 */
function cpuFigures(stage: string, shape: Shape, spent: readonly ProcessCpu[], acknowledged: number, idleCpuMs: number): Figure[] {
  const perEvent = (milliseconds: number): number => milliseconds / Math.max(acknowledged, 1);
  const line = (name: string, milliseconds: number): Figure => ({
    stage,
    figure: `CPU per acknowledged event, ${name}`,
    measured: `${describeMs(perEvent(milliseconds))} (${count(milliseconds)} ms CPU)`,
  });
  const lines = spent.flatMap(({ process, ownMs, childrenMs }) => [
    line(process.name, ownMs),
    ...(childrenMs > 0 ? [line(`${process.name}: child processes`, childrenMs)] : []),
  ]);
  const guidepost = spent.filter(({ process }) => !process.server);
  const ownMs = cpuMsOf(guidepost);
  const ownAboveIdleMs = ownMs - idleCpuMs;
  const totalMs = cpuMsOf(spent);
  const distributed = shape === 'distributed';
  const ownTotal: Figure = {
    stage,
    figure: `CPU per acknowledged event, ${guidepost.length === 1 ? "Guidepost's process above its" : `Guidepost's ${guidepost.length} processes above their`} idle cost`,
    measured: `${describeMs(perEvent(ownAboveIdleMs))} (${count(ownMs)} ms CPU, of which ${count(idleCpuMs)} ms idle cost)`,
    target: distributed ? atMost(perEvent(ownAboveIdleMs), DISTRIBUTED_OWN_CPU_TARGET_MS, describeMs) : undefined,
  };
  const total: Figure = {
    stage,
    figure: 'CPU per acknowledged event, all processes and their children',
    measured: `${describeMs(perEvent(totalMs))} (${count(totalMs)} ms CPU over ${count(acknowledged)} events)`,
    target: distributed ? atMost(perEvent(totalMs), DISTRIBUTED_ALL_CPU_TARGET_MS, describeMs) : undefined,
  };
  return [...lines, ownTotal, total];
}

/** What the reference front door's process and the broker spent per event it acknowledged, shown beside Guidepost's. */
function referenceCpuFigures(stage: string, spent: readonly ProcessCpu[], acknowledged: number): Figure[] {
  return spent.map(({ process, ownMs, childrenMs }) => ({
    stage,
    figure: `CPU per acknowledged event of the reference front door, ${process.name}`,
    measured: `${describeMs((ownMs + childrenMs) / Math.max(acknowledged, 1))} (${count(ownMs + childrenMs)} ms CPU over ${count(acknowledged)} events)`,
  }));
}

function cpuMsOf(spent: readonly ProcessCpu[]): number {
  return spent.reduce((sum, { ownMs, childrenMs }) => sum + ownMs + childrenMs, 0);
}

function describeMs(milliseconds: number): string {
  return `${milliseconds.toFixed(3)} ms`;
}

/** CPU per second the processes spend with no load (timers, consumer fetches, heartbeats, polls). */
async function idleCpuRate(processes: readonly NamedProcess[]): Promise<number> {
  const before = cpuNow(processes);
  await delay(IDLE_MS);
  return cpuMsOf(cpuSince(before, processes)) / (IDLE_MS / 1000);
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

interface ChildServer {
  readonly baseUrl: string;
  readonly process: NamedProcess;
  stop(): Promise<void>;
}

/** Forks one of the baseline servers (compiled beside this file) and waits for the port it listens on. */
async function startChildServer(script: string, settings?: object): Promise<ChildServer> {
  const child = fork(join(__dirname, script), settings === undefined ? [] : [JSON.stringify(settings)], { stdio: 'inherit' });
  const exited = once(child, 'exit');
  const listening = once(child, 'message').then(([message]) => message as { port: number });
  const message = await Promise.race([listening, exited.then(() => undefined)]);
  if (message === undefined || child.pid === undefined) throw new Error(`${script} exited before it listened (its error is above)`);
  return {
    baseUrl: `http://127.0.0.1:${message.port}`,
    process: { name: script.replace(/\.js$/, ''), pid: child.pid },
    async stop() {
      child.kill('SIGTERM');
      if (!(await settlesWithin(exited, 5_000))) child.kill('SIGKILL');
    },
  };
}

/** The reference front door, producing to a topic of its own on the deployment's broker (discarded with the deployment). */
function startReferenceIntake(kafka: KafkaPlace, account: BenchAccount): Promise<ChildServer> {
  const settings: ReferenceIntakeSettings = {
    brokers: kafka.brokers,
    topic: `${kafka.topicPrefix}bench.reference-intake`,
    partitions: kafka.partitions,
    authorization: account.authorization,
  };
  return startChildServer('reference-intake-server.js', settings);
}

/** The processes whose CPU the reference front door's events cost: its own and the broker's. */
function referenceProcesses(reference: ChildServer, kafka: KafkaPlace | undefined): NamedProcess[] {
  return [reference.process, ...(kafka?.brokerProcess ? [kafka.brokerProcess] : [])];
}
