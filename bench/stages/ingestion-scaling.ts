import { join } from 'node:path';
import type { TrackSettings } from '../config';
import type { Figure, TargetCheck } from '../report';
import { delay } from '../support/clock';
import { startDistributed } from '../support/distributed-deployment';
import { BenchAccount } from '../support/guidepost-client';
import type { LoadResult } from '../support/load-generator';
import { cpuNow, cpuSince, type ProcessCpu } from '../support/process-cpu';
import type { NamedProcess } from '../support/process-tree';
import { count, percent } from '../units';
import { trackLoad, trackPath } from './track';

export const SCALING_STAGE = '6 ingestion scaling (distributed)';
/** Issue 11: the ingestion service's events per CPU-second stay within 10 % from 1 to 3 replicas. */
const TOLERANCE = 0.1;
/** After the load, the consumers of the replicas still sink what was acknowledged: that CPU counts too. */
const DRAIN_MS = 3_000;
/** How long the replicas' CPU is watched with no load: what each costs whatever it handles. */
const IDLE_MS = 10_000;

interface ScalingRun {
  readonly replicas: number;
  readonly load: LoadResult;
  /** CPU of every ingestion replica (and their child processes), summed, over the load and the drain. */
  readonly ingestionCpuMs: number;
  /** The same replicas' CPU per second with no load (consumer fetches, heartbeats, relay polls, timers). */
  readonly idleCpuMsPerSecond: number;
}

/**
 * For each replica count, a fresh distributed shape with that many ingestion replicas (the gateway
 * calls the first; the replicas share the Kafka partitions), tracked at the largest connection
 * count; figure: events acknowledged per CPU-second of the ingestion service, against one replica's.
 * Before the load the replicas' CPU is watched idle for `IDLE_MS`, and a second figure leaves that
 * fixed cost out (the events per CPU-second of the work the load itself added): what a replica costs
 * whether or not it has events to handle, told apart from what an event costs.
 */
export async function measureIngestionScaling(
  replicaCounts: readonly number[],
  settings: TrackSettings,
  workDir: string,
): Promise<Figure[]> {
  const runs: ScalingRun[] = [];
  for (const replicas of replicaCounts) runs.push(await scalingRun(replicas, settings, join(workDir, `ingestion-replicas-${replicas}`)));
  const first = runs[0];
  const connections = Math.max(...settings.connections);
  return runs.flatMap((run) => {
    const ratio = eventsPerCpuSecond(run) / eventsPerCpuSecond(first);
    const netRatio = eventsPerLoadCpuSecond(run) / eventsPerLoadCpuSecond(first);
    return [
      {
        stage: SCALING_STAGE,
        figure: `ingestion service, ${replicasOf(run)}, ${connections} connections`,
        measured: describeRun(run),
        ...(run === first
          ? {}
          : {
              baseline: `${replicasOf(first)}: ${count(eventsPerCpuSecond(first))} events per CPU-second`,
              ratio,
              target: withinTolerance(ratio),
            }),
      },
      {
        stage: SCALING_STAGE,
        figure: `ingestion service, ${replicasOf(run)}, the same without its idle CPU`,
        measured:
          `${count(eventsPerLoadCpuSecond(run))} events per CPU-second above idle ` +
          `(idle: ${count(run.idleCpuMsPerSecond)} ms CPU per second, ${count(idleCpuMsOfRun(run))} ms of the run's)`,
        ...(run === first ? {} : { baseline: `${replicasOf(first)}: ${count(eventsPerLoadCpuSecond(first))}`, ratio: netRatio }),
      },
    ];
  });
}

async function scalingRun(replicas: number, settings: TrackSettings, runDir: string): Promise<ScalingRun> {
  const deployment = await startDistributed(runDir, replicas);
  try {
    const account = await BenchAccount.create(deployment, `bench scaling ${replicas}`);
    const connections = Math.max(...settings.connections);
    const ingestion = deployment.processes.filter(({ name }) => name.startsWith('ingestion-'));
    const idleStart = cpuNow(ingestion);
    await delay(IDLE_MS);
    const idleCpuMsPerSecond = cpuMsSince(idleStart, ingestion) / (IDLE_MS / 1000);
    await trackLoad(account, account.url(trackPath('bench-warmup')), connections, settings.warmupSeconds);
    const before = cpuNow(ingestion);
    const load = await trackLoad(account, account.url(trackPath(`bench-replicas-${replicas}`)), connections, settings.durationSeconds);
    await delay(DRAIN_MS);
    return { replicas, load, ingestionCpuMs: cpuMsSince(before, ingestion), idleCpuMsPerSecond };
  } finally {
    await deployment.stop();
  }
}

/** CPU of the processes (and their children) since `before`, summed. */
function cpuMsSince(before: readonly ProcessCpu[], processes: readonly NamedProcess[]): number {
  return cpuSince(before, processes).reduce((sum, { ownMs, childrenMs }) => sum + ownMs + childrenMs, 0);
}

function replicasOf(run: ScalingRun): string {
  return run.replicas === 1 ? '1 replica' : `${run.replicas} replicas`;
}

function eventsPerCpuSecond(run: ScalingRun): number {
  return run.load.succeeded / Math.max(run.ingestionCpuMs / 1000, 0.001);
}

/** What the replicas would have spent idle over the load and the drain. */
function idleCpuMsOfRun(run: ScalingRun): number {
  return run.idleCpuMsPerSecond * (run.load.durationSeconds + DRAIN_MS / 1000);
}

/** Events per CPU-second of what the load added above the idle replicas' own cost. */
function eventsPerLoadCpuSecond(run: ScalingRun): number {
  return run.load.succeeded / Math.max((run.ingestionCpuMs - idleCpuMsOfRun(run)) / 1000, 0.001);
}

function describeRun(run: ScalingRun): string {
  const rate = count(run.load.succeeded / run.load.durationSeconds);
  return `${count(eventsPerCpuSecond(run))} events per CPU-second (${count(run.load.succeeded)} events, ${count(run.ingestionCpuMs)} ms CPU; ${rate} req/s)`;
}

function withinTolerance(ratio: number): TargetCheck {
  return { target: `${percent(1 - TOLERANCE)} to ${percent(1 + TOLERANCE)}`, met: Math.abs(ratio - 1) <= TOLERANCE };
}
