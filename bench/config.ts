/**
 * What one `npm run bench` measures and how big. `BENCH_SCALE=small` is a smoke run of a few minutes
 * (the figures are then only indicative); the default `full` scale is the one the targets in
 * docs/performance.md are judged at. Each size can also be set on its own.
 */
import { SHAPES, type Shape } from './support/deployment';
import { MEGABYTE } from './units';

export const STAGES = ['parse', 'track', 'import', 'export', 'analytics', 'scaling'] as const;
export type StageName = (typeof STAGES)[number];

export interface TrackSettings {
  readonly durationSeconds: number;
  /** One measured run per count, on Guidepost and on the bare server alike. */
  readonly connections: readonly number[];
  /** Unmeasured load first, so that both servers run optimised code when measured. */
  readonly warmupSeconds: number;
}

export interface ParseSettings {
  /** Size of the generated NDJSON document; the CSV holds the same rows. */
  readonly bytes: number;
  /** Each parser runs this many times; the fastest run counts (the others include GC and JIT noise). */
  readonly repeats: number;
}

export interface BenchConfig {
  readonly scale: 'small' | 'full';
  readonly stages: ReadonlySet<StageName>;
  /** The shapes the track, import and export stages run against, each started fresh (`BENCH_SHAPES`). */
  readonly shapes: ReadonlySet<Shape>;
  readonly track: TrackSettings;
  readonly parse: ParseSettings;
  /** Size of the NDJSON file uploaded to `/import/events` (at most the 200 MiB file limit). */
  readonly importBytes: number;
  /** Events the export stage exports (imported first when the store holds fewer). */
  readonly exportEvents: number;
  /** Events of the one account the analytics stage queries (imported into a server of its own). */
  readonly analyticsEvents: number;
  /** Ingestion replica counts the scaling stage compares (distributed shape only; the first is the baseline). */
  readonly ingestionReplicas: readonly number[];
  readonly port: number;
  /** The standalone server measured (`BENCH_SERVER_ENTRY`, relative to the repository): another build can be measured without replacing dist/. */
  readonly serverEntryPoint: string;
  /** Keep the data folder and logs under /tmp after the run (`BENCH_KEEP_DATA=1`). */
  readonly keepData: boolean;
}

/** The server's default file limit (200 MiB): generated uploads stay under it. */
export const FILE_LIMIT_BYTES = 200 * 1024 * 1024;

const SCALES: Readonly<
  Record<
    BenchConfig['scale'],
    Omit<BenchConfig, 'scale' | 'stages' | 'shapes' | 'ingestionReplicas' | 'port' | 'serverEntryPoint' | 'keepData'>
  >
> = {
  small: {
    track: { durationSeconds: 3, connections: [10, 50], warmupSeconds: 1 },
    parse: { bytes: 10 * MEGABYTE, repeats: 1 },
    importBytes: 10 * MEGABYTE,
    exportEvents: 50_000,
    analyticsEvents: 100_000,
  },
  full: {
    track: { durationSeconds: 10, connections: [10, 50, 200], warmupSeconds: 3 },
    parse: { bytes: 100 * MEGABYTE, repeats: 3 },
    importBytes: 200 * MEGABYTE,
    exportEvents: 1_000_000,
    analyticsEvents: 10_000_000,
  },
};

/** The configuration from `BENCH_*` variables; every invalid value is listed in one error. */
export function benchConfig(env: NodeJS.ProcessEnv): BenchConfig {
  const problems: string[] = [];
  const read = new EnvReader(env, problems);
  const scale = read.choice('BENCH_SCALE', ['small', 'full'] as const, 'full');
  const defaults = SCALES[scale];
  const config: BenchConfig = {
    scale,
    stages: new Set(read.list('BENCH_STAGES', STAGES, STAGES)),
    shapes: new Set(read.list('BENCH_SHAPES', SHAPES, SHAPES)),
    track: {
      durationSeconds: read.positiveInteger('BENCH_TRACK_SECONDS', defaults.track.durationSeconds),
      connections: read.positiveIntegers('BENCH_TRACK_CONNECTIONS', defaults.track.connections),
      warmupSeconds: defaults.track.warmupSeconds,
    },
    parse: {
      bytes: read.positiveInteger('BENCH_PARSE_MB', defaults.parse.bytes / MEGABYTE) * MEGABYTE,
      repeats: read.positiveInteger('BENCH_PARSE_REPEATS', defaults.parse.repeats),
    },
    importBytes: read.positiveInteger('BENCH_IMPORT_MB', defaults.importBytes / MEGABYTE) * MEGABYTE,
    exportEvents: read.positiveInteger('BENCH_EXPORT_EVENTS', defaults.exportEvents),
    analyticsEvents: read.positiveInteger('BENCH_ANALYTICS_EVENTS', defaults.analyticsEvents),
    ingestionReplicas: read.positiveIntegers('BENCH_SCALING_REPLICAS', [1, 2, 3]),
    port: read.positiveInteger('BENCH_PORT', 18106),
    serverEntryPoint: env['BENCH_SERVER_ENTRY'] || 'dist/apps/standalone/src/main.js',
    keepData: env['BENCH_KEEP_DATA'] === '1',
  };
  if (config.importBytes > FILE_LIMIT_BYTES)
    problems.push(`BENCH_IMPORT_MB: at most ${FILE_LIMIT_BYTES / MEGABYTE} (the server's file limit)`);
  if (problems.length > 0) throw new Error(`invalid benchmark settings:\n- ${problems.join('\n- ')}`);
  return config;
}

class EnvReader {
  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly problems: string[],
  ) {}

  choice<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.env[name];
    if (value === undefined || value === '') return fallback;
    return this.oneOf(name, value, allowed) ?? fallback;
  }

  list<T extends string>(name: string, allowed: readonly T[], fallback: readonly T[]): T[] {
    const value = this.env[name];
    if (value === undefined || value === '') return [...fallback];
    return value.split(',').flatMap((item) => this.oneOf(name, item.trim(), allowed) ?? []);
  }

  positiveInteger(name: string, fallback: number): number {
    const value = this.env[name];
    if (value === undefined || value === '') return fallback;
    return this.parsePositive(name, value) ?? fallback;
  }

  positiveIntegers(name: string, fallback: readonly number[]): number[] {
    const value = this.env[name];
    if (value === undefined || value === '') return [...fallback];
    return value.split(',').flatMap((item) => this.parsePositive(name, item.trim()) ?? []);
  }

  private oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T | undefined {
    if ((allowed as readonly string[]).includes(value)) return value as T;
    this.problems.push(`${name}: '${value}' is not one of ${allowed.join(', ')}`);
    return undefined;
  }

  private parsePositive(name: string, text: string): number | undefined {
    const number = Number(text);
    if (Number.isInteger(number) && number > 0) return number;
    this.problems.push(`${name}: '${text}' is not a positive integer`);
    return undefined;
  }
}
