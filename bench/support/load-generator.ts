import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** One autocannon run: the same request over and over on `connections` keep-alive connections. */
export interface LoadSettings {
  readonly url: string;
  readonly connections: number;
  readonly durationSeconds: number;
  /** Requests per second over all connections; unset, each connection sends as fast as it is answered. */
  readonly overallRate?: number;
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Sent as the body of every POST; each `[<id>]` in it is replaced by a fresh id per request, and each
   * `[<now>]` by the time the request is built (ISO 8601), as a client stamps its events.
   */
  readonly body: string;
}

export interface LoadResult {
  readonly durationSeconds: number;
  /** Responses with a 2xx status: what counts as served. */
  readonly succeeded: number;
  readonly failed: number;
  /** Requests written, answered or not: a request in flight when the run ended may still have been served. */
  readonly sent: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
}

/** The fields of autocannon's result the benchmark reads. */
interface AutocannonSummary {
  duration: number;
  '2xx': number;
  non2xx: number;
  errors: number;
  requests: { sent: number };
  latency: { p50: number; p99: number };
}

/** load-runner.js, compiled beside this file. */
const LOAD_RUNNER = join(__dirname, 'load-runner.js');
const run = promisify(execFile);

/**
 * Runs autocannon in its own process (`load-runner`), so that the load generator never shares an
 * event loop with what it measures, and reads its JSON summary.
 */
export async function generateLoad(settings: LoadSettings): Promise<LoadResult> {
  const { stdout } = await run(process.execPath, [LOAD_RUNNER, JSON.stringify(settings)], { maxBuffer: 16 * 1024 * 1024 });
  const summary = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as AutocannonSummary;
  return {
    durationSeconds: summary.duration,
    succeeded: summary['2xx'],
    // autocannon counts a timeout among the errors too.
    failed: summary.non2xx + summary.errors,
    sent: summary.requests.sent,
    latencyP50Ms: summary.latency.p50,
    latencyP99Ms: summary.latency.p99,
  };
}
