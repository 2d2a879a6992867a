import { join } from 'node:path';
import type { TrackSettings } from '../config';
import type { Figure, TargetCheck } from '../report';
import { delay } from '../support/clock';
import { startDistributed } from '../support/distributed-deployment';
import { BenchAccount } from '../support/guidepost-client';
import type { LoadResult } from '../support/load-generator';
import { cpuNow, cpuSince } from '../support/process-cpu';
import { count, percent } from '../units';
import { trackLoad, trackPath } from './track';

export const SCALING_STAGE = '6 ingestion scaling (distributed)';
/** Issue 11: the ingestion service's events per CPU-second stay within 10 % from 1 to 3 replicas. */
const TOLERANCE = 0.1;
/** After the load, the consumers of the replicas still sink what was acknowledged: that CPU counts too. */
const DRAIN_MS = 3_000;

interface ScalingRun {
  readonly replicas: number;
  readonly load: LoadResult;
  /** CPU of every ingestion replica (and their child processes), summed. */
  readonly ingestionCpuMs: number;
}

/**
 * For each replica count, a fresh distributed shape with that many ingestion replicas (the gateway
 * calls the first; the replicas share the Kafka partitions), tracked at the largest connection
 * count; figure: events acknowledged per CPU-second of the ingestion service, against one replica's.
 */
export async function measureIngestionScaling(replicaCounts: readonly number[], settings: TrackSettings, workDir: string): Promise<Figure[]> {
  const runs: ScalingRun[] = [];
  for (const replicas of replicaCounts) runs.push(await scalingRun(replicas, settings, join(workDir, `ingestion-replicas-${replicas}`)));
  const first = runs[0];
  return runs.map((run) => {
    const ratio = eventsPerCpuSecond(run) / eventsPerCpuSecond(first);
    return {
      stage: SCALING_STAGE,
      figure: `ingestion service, ${replicasOf(run)}, ${Math.max(...settings.connections)} connections`,
      measured: describeRun(run),
      ...(run === first ? {} : { baseline: `${replicasOf(first)}: ${count(eventsPerCpuSecond(first))} events per CPU-second`, ratio, target: withinTolerance(ratio) }),
    };
  });
}

async function scalingRun(replicas: number, settings: TrackSettings, runDir: string): Promise<ScalingRun> {
  const deployment = await startDistributed(runDir, replicas);
  try {
    const account = await BenchAccount.create(deployment, `bench scaling ${replicas}`);
    const connections = Math.max(...settings.connections);
    await trackLoad(account, account.url(trackPath('bench-warmup')), connections, settings.warmupSeconds);
    const ingestion = deployment.processes.filter(({ name }) => name.startsWith('ingestion-'));
    const before = cpuNow(ingestion);
    const load = await trackLoad(account, account.url(trackPath(`bench-replicas-${replicas}`)), connections, settings.durationSeconds);
    await delay(DRAIN_MS);
    const ingestionCpuMs = cpuSince(before, ingestion).reduce((sum, { ownMs, childrenMs }) => sum + ownMs + childrenMs, 0);
    return { replicas, load, ingestionCpuMs };
  } finally {
    await deployment.stop();
  }
}

function replicasOf(run: ScalingRun): string {
  return run.replicas === 1 ? '1 replica' : `${run.replicas} replicas`;
}

function eventsPerCpuSecond(run: ScalingRun): number {
  return run.load.succeeded / Math.max(run.ingestionCpuMs / 1000, 0.001);
}

function describeRun(run: ScalingRun): string {
  const rate = count(run.load.succeeded / run.load.durationSeconds);
  return `${count(eventsPerCpuSecond(run))} events per CPU-second (${count(run.load.succeeded)} events, ${count(run.ingestionCpuMs)} ms CPU; ${rate} req/s)`;
}

function withinTolerance(ratio: number): TargetCheck {
  return { target: `${percent(1 - TOLERANCE)} to ${percent(1 + TOLERANCE)}`, met: Math.abs(ratio - 1) <= TOLERANCE };
}
