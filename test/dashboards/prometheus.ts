import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
// A relative path, not the alias, as the distributed specs reach the suite's tools.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { freeLoopbackPort } from '../../tools/suite/src';

/** A target Prometheus scrapes: a process's host:port and the role label the dashboards group by. */
export interface ScrapeTarget {
  readonly address: string;
  readonly role: string;
}

/** One series of a query's answer: its labels and its [time, value] samples. */
export interface Series {
  readonly metric: Record<string, string>;
  readonly values: [number, string][];
}

/** How often Prometheus scrapes here: short, so a minute of load gives plenty of samples. */
export const SCRAPE_INTERVAL_SECONDS = 1;

/**
 * A real Prometheus on loopback for a test: its own configuration (every target labelled with its
 * `guidepost_role`, as the chart's ServiceMonitor does) and its own data folder, both removed on stop.
 * The binary comes from `GUIDEPOST_PROMETHEUS` (scripts/observability/install-prometheus.sh).
 */
export class TestPrometheus {
  private constructor(
    readonly url: string,
    private readonly process: ChildProcess,
    private readonly dir: string,
  ) {}

  static async start(targets: readonly ScrapeTarget[]): Promise<TestPrometheus> {
    const binary = process.env['GUIDEPOST_PROMETHEUS'];
    if (!binary) throw new Error('GUIDEPOST_PROMETHEUS is not set: run this through `npm run test:dashboards`, which installs Prometheus');
    const dir = await mkdtemp(join(tmpdir(), 'guidepost-prometheus-'));
    const port = await freeLoopbackPort();
    await writeFile(join(dir, 'prometheus.yml'), configuration(targets));
    const log = createWriteStream(join(dir, 'prometheus.log'));
    const child = spawn(
      binary,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--storage.tsdb.retention.time=1h',
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    const prometheus = new TestPrometheus(`http://127.0.0.1:${port}`, child, dir);
    await prometheus.waitUntilReady();
    return prometheus;
  }

  /** Stops Prometheus (SIGTERM, then SIGKILL after 10 s) and removes its folder. */
  async stop(): Promise<void> {
    if (this.process.exitCode === null && this.process.signalCode === null) {
      const exited = new Promise((done) => this.process.once('exit', done));
      this.process.kill('SIGTERM');
      if ((await Promise.race([exited.then(() => 'exited'), delay(10_000).then(() => 'timeout')])) === 'timeout') {
        this.process.kill('SIGKILL');
        await exited;
      }
    }
    await rm(this.dir, { recursive: true, force: true });
  }

  /** A range query over [start, end] (epoch seconds), as Grafana runs a panel's query. */
  async queryRange(expr: string, start: number, end: number, stepSeconds: number): Promise<Series[]> {
    return this.api<Series[]>(
      '/api/v1/query_range',
      { query: expr, start: String(start), end: String(end), step: String(stepSeconds) },
      'matrix',
    );
  }

  /** An instant query at `time` (epoch seconds), as the rule evaluator runs an alert's expression. */
  async query(expr: string, time: number): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
    return this.api('/api/v1/query', { query: expr, time: String(time) }, 'vector');
  }

  /** Every metric name Prometheus holds. */
  metricNames(): Promise<string[]> {
    return this.api<string[]>('/api/v1/label/__name__/values', {});
  }

  /** The scrape targets and their health. */
  async targets(): Promise<{ labels: Record<string, string>; health: string; lastError: string }[]> {
    return (
      await this.api<{ activeTargets: { labels: Record<string, string>; health: string; lastError: string }[] }>('/api/v1/targets', {})
    ).activeTargets;
  }

  private async api<T>(path: string, parameters: Record<string, string>, resultType?: string): Promise<T> {
    const response = await fetch(`${this.url}${path}?${new URLSearchParams(parameters).toString()}`);
    const body = (await response.json()) as { status: string; error?: string; data: { resultType?: string; result?: unknown } | T };
    if (body.status !== 'success') throw new Error(`Prometheus refused ${JSON.stringify(parameters)}: ${body.error ?? response.status}`);
    if (resultType === undefined) return body.data as T;
    const data = body.data as { resultType: string; result: T };
    if (data.resultType !== resultType)
      throw new Error(`Prometheus answered a ${data.resultType}, not a ${resultType}, to ${parameters['query']}`);
    return data.result;
  }

  private async waitUntilReady(): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (this.process.exitCode !== null)
        throw new Error(`Prometheus exited with ${this.process.exitCode} (log: ${join(this.dir, 'prometheus.log')})`);
      const ready = await fetch(`${this.url}/-/ready`).then(
        (response) => response.ok,
        () => false,
      );
      if (ready) return;
      await delay(250);
    }
    throw new Error(`Prometheus was not ready within a minute (log: ${join(this.dir, 'prometheus.log')})`);
  }
}

function configuration(targets: readonly ScrapeTarget[]): string {
  const staticConfigs = targets
    .map(({ address, role }) => `      - targets: ['${address}']\n        labels: { guidepost_role: '${role}' }`)
    .join('\n');
  return `global:
  scrape_interval: ${SCRAPE_INTERVAL_SECONDS}s
  scrape_timeout: ${SCRAPE_INTERVAL_SECONDS}s
  evaluation_interval: ${SCRAPE_INTERVAL_SECONDS}s
scrape_configs:
  - job_name: guidepost
    metrics_path: /metrics
    static_configs:
${staticConfigs}
`;
}
