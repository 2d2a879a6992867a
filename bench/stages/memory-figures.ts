import { atMost, type Figure } from '../report';
import type { MemoryNow, MemoryPeaks } from '../support/process-memory';
import { mebibytes } from '../units';

/**
 * The memory figures of a stage: the server's peak RSS (what the target is about), its anonymous
 * part (the RSS without mapped code such as libchdb.so, which is what grows with the work), and
 * the largest of its child processes (the embedded PostgreSQL's).
 */
export function memoryFigures(stage: string, idle: MemoryNow, peaks: MemoryPeaks, limitBytes: number): Figure[] {
  const figures: Figure[] = [
    {
      stage,
      figure: 'peak RSS, server process (Node + chdb)',
      measured: `${mebibytes(peaks.rootBytes)} (idle before: ${mebibytes(idle.residentBytes)})`,
      target: atMost(peaks.rootBytes, limitBytes, mebibytes),
    },
    {
      stage,
      figure: 'peak anonymous RSS, server process',
      measured: `${mebibytes(peaks.rootAnonymousBytes)} (idle before: ${mebibytes(idle.anonymousBytes)}; RSS without mapped code and files)`,
    },
  ];
  if (peaks.largestDescendant) {
    figures.push({
      stage,
      figure: 'peak RSS, largest child process',
      measured: `${mebibytes(peaks.largestDescendant.bytes)} (${peaks.largestDescendant.command})`,
      target: atMost(peaks.largestDescendant.bytes, limitBytes, mebibytes),
    });
  }
  return figures;
}
