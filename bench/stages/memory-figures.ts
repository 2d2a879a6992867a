import { atMost, type Figure } from '../report';
import type { WatchedMemory } from '../support/process-memory';
import type { Shape } from '../support/deployment';
import { MEBIBYTE, mebibytes } from '../units';

/**
 * Issue 11: during the 200 MB import and the 1 M export, each Node process of the distributed shape
 * stays under 256 MiB; the standalone process, with the ClickHouse engine in it, under 1 GiB.
 */
export const PEAK_LIMIT_BYTES: Readonly<Record<Shape, number>> = { standalone: 1024 * MEBIBYTE, distributed: 256 * MEBIBYTE };

/**
 * The memory figures of a stage, for each watched process: its peak RSS (what the target is about;
 * the servers Guidepost uses are shown without one), for Guidepost's own its anonymous part (the RSS
 * without mapped code such as libchdb.so, which is what grows with the work), and the largest of its child processes
 * (the embedded PostgreSQL's, a PostgreSQL server's backends).
 */
export function memoryFigures(stage: string, watched: readonly WatchedMemory[], limitBytes: number): Figure[] {
  return watched.flatMap(({ process, idle, peaks }) => {
    const target = (bytes: number) => (process.server ? undefined : atMost(bytes, limitBytes, mebibytes));
    const figures: Figure[] = [
      {
        stage,
        figure: `peak RSS, ${process.name}`,
        measured: `${mebibytes(peaks.rootBytes)} (idle before: ${mebibytes(idle.residentBytes)})`,
        target: target(peaks.rootBytes),
      },
    ];
    // Guidepost's own processes only: the servers' split is not Guidepost's to act on.
    if (!process.server) {
      figures.push({
        stage,
        figure: `peak anonymous RSS, ${process.name}`,
        measured: `${mebibytes(peaks.rootAnonymousBytes)} (idle before: ${mebibytes(idle.anonymousBytes)}; RSS without mapped code and files)`,
      });
    }
    if (peaks.largestDescendant) {
      figures.push({
        stage,
        figure: `peak RSS, largest child process of ${process.name}`,
        measured: `${mebibytes(peaks.largestDescendant.bytes)} (${peaks.largestDescendant.command})`,
        target: target(peaks.largestDescendant.bytes),
      });
    }
    return figures;
  });
}
