import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchConfig, type BenchConfig, type StageName } from './config';
import { describeMachine, renderMachine } from './machine';
import { failedFigure, renderTable, type Figure } from './report';
import { ANALYTICS_STAGE, measureAnalytics } from './stages/analytics';
import { EXPORT_STAGE, measureExport } from './stages/export';
import { IMPORT_STAGE, measureImport, type ImportedEvents } from './stages/import';
import { measureIngestionScaling, SCALING_STAGE } from './stages/ingestion-scaling';
import { measureParse, PARSE_STAGE } from './stages/parse';
import { measureTrack, TRACK_STAGE } from './stages/track';
import { stageOfShape, type Deployment, type Shape } from './support/deployment';
import { startDistributed } from './support/distributed-deployment';
import { startGuidepost } from './support/guidepost-server';
import { count, megabytes } from './units';

/**
 * `npm run bench`: measures Guidepost beside its baselines in one run on one machine and prints the
 * figures as a Markdown table (docs/performance.md explains them). Progress goes to stderr, the
 * report to stdout. A stage that cannot run (a feature missing or failing) is reported as such and
 * the others still run; the exit code is 1 when any figure could not be measured.
 */
async function main(): Promise<void> {
  const config = benchConfig(process.env);
  const loadAtStart = oneMinuteLoad();
  const figures: Figure[] = [];
  if (config.stages.has('parse')) figures.push(...(await stage(PARSE_STAGE, () => measureParse(config.parse))));
  if (needsServer(config)) {
    for (const shape of config.shapes)
      figures.push(
        ...(await withWorkDir(config, shape, async (workDir) =>
          deploymentStages(config, await startShape(config, shape, workDir), workDir),
        )),
      );
  }
  if (config.stages.has('scaling') && config.shapes.has('distributed')) {
    figures.push(
      ...(await withWorkDir(config, 'distributed', (workDir) =>
        stage(SCALING_STAGE, () => measureIngestionScaling(config.ingestionReplicas, config.track, workDir)),
      )),
    );
  }
  if (config.stages.has('analytics')) {
    for (const shape of config.shapes) {
      figures.push(
        ...(await withWorkDir(config, shape, (workDir) =>
          stage(stageOfShape(ANALYTICS_STAGE, shape), () =>
            measureAnalytics(() => startShape(config, shape, workDir), config.analyticsEvents, workDir),
          ),
        )),
      );
    }
  }

  console.log(`# Guidepost benchmark (${config.scale} scale)\n\n${renderMachine(describeMachine())}`);
  // Anything else running on the machine skews the figures: say how busy it was.
  console.log(`- Load average (1 min): ${loadAtStart} at the start, ${oneMinuteLoad()} at the end`);
  console.log(`- Settings: ${describeSettings(config)}\n`);
  console.log(renderTable([...figures].sort((a, b) => a.stage.localeCompare(b.stage))));
  if (figures.some((figure) => figure.failure !== undefined)) process.exitCode = 1;
}

/**
 * A fresh deployment of `shape` whose data and logs are kept in `workDir`: the standalone server on
 * the configured port (started again, it finds its data there), or the distributed shape on the
 * servers of scripts/infra, in a namespace of its own discarded when it stops.
 */
function startShape(config: BenchConfig, shape: Shape, workDir: string): Promise<Deployment> {
  progress(`starting Guidepost (${shape}) (data and logs in ${workDir})`);
  if (shape === 'distributed') return startDistributed(workDir);
  return startGuidepost({
    entryPoint: config.serverEntryPoint,
    port: config.port,
    dataDir: join(workDir, 'data'),
    logFile: join(workDir, 'server.log'),
  });
}

/** The stages that measure a running deployment, in order (export reuses the import's events); stops it at the end. */
async function deploymentStages(config: BenchConfig, deployment: Deployment, workDir: string): Promise<Figure[]> {
  const named = (name: string): string => stageOfShape(name, deployment.shape);
  const figures: Figure[] = [];
  try {
    if (config.stages.has('track')) figures.push(...(await stage(named(TRACK_STAGE), () => measureTrack(deployment, config.track))));
    let imported: ImportedEvents | undefined;
    if (config.stages.has('import')) {
      figures.push(
        ...(await stage(named(IMPORT_STAGE), async () => {
          const run = await measureImport(deployment, config.importBytes, workDir);
          imported = run.imported;
          return run.figures;
        })),
      );
    }
    if (config.stages.has('export')) {
      figures.push(...(await stage(named(EXPORT_STAGE), () => measureExport(deployment, config.exportEvents, workDir, imported))));
    }
  } finally {
    await deployment.stop();
  }
  return figures;
}

/** Runs `use` with a fresh folder under /tmp (kept with BENCH_KEEP_DATA=1); a failure to start becomes a figure saying why. */
async function withWorkDir(config: BenchConfig, shape: Shape, use: (workDir: string) => Promise<Figure[]>): Promise<Figure[]> {
  const workDir = await mkdtemp(join(tmpdir(), 'guidepost-bench-'));
  // Run as root, the embedded PostgreSQL drops to a `postgres` user that must reach its folder.
  await chmod(workDir, 0o755);
  try {
    return await use(workDir);
  } catch (error) {
    console.error(error);
    return [failedFigure(stageOfShape('0 server', shape), 'start Guidepost', error)];
  } finally {
    if (config.keepData) progress(`kept ${workDir}`);
    else await rm(workDir, { recursive: true, force: true });
  }
}

/** Runs one stage; its failure becomes a figure saying why, so the other stages still run. */
async function stage(name: string, run: () => Promise<Figure[]>): Promise<Figure[]> {
  progress(`stage ${name}`);
  try {
    return await run();
  } catch (error) {
    console.error(error);
    return [failedFigure(name, 'stage', error)];
  }
}

function needsServer(config: BenchConfig): boolean {
  const serverStageNames: readonly StageName[] = ['track', 'import', 'export'];
  return serverStageNames.some((name) => config.stages.has(name));
}

function describeSettings(config: BenchConfig): string {
  return [
    `stages ${[...config.stages].join(', ')}`,
    `shapes ${[...config.shapes].join(', ')}`,
    `track ${config.track.durationSeconds} s at ${config.track.connections.join('/')} connections`,
    `parse ${megabytes(config.parse.bytes)} x ${config.parse.repeats}`,
    `import ${megabytes(config.importBytes)}`,
    `export ${count(config.exportEvents)} events`,
    `analytics ${count(config.analyticsEvents)} events`,
    `scaling ${config.ingestionReplicas.join('/')} ingestion replicas`,
  ].join('; ');
}

function oneMinuteLoad(): string {
  return loadavg()[0].toFixed(2);
}

function progress(message: string): void {
  console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
