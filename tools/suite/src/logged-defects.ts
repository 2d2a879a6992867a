import { readFile } from 'node:fs/promises';

/** At most this many defects are told, the first ones: the rest are usually the same one again. */
const REPORTED_DEFECTS = 10;
/** Stack lines kept per defect: where it was thrown and what called it. */
const STACK_LINES = 12;

/** A server's log file and the name it is told by. */
export interface ServerLog {
  readonly name: string;
  readonly logFile: string;
}

/**
 * What the servers logged as defects: the lines of level `error` or above (pino: 50) that carry an
 * error (`err`), which is how every 500 is logged (`ProblemDetailsFilter`: its stack, nothing of it in
 * the answer). A suite that met one prints this once its servers have stopped, so a 500 found on a CI
 * machine, whose logs are gone with it, comes with its stack. Undefined when there was none.
 */
export async function loggedDefects(logs: readonly ServerLog[]): Promise<string | undefined> {
  const defects: string[] = [];
  let total = 0;
  for (const { name, logFile } of logs) {
    const text = await readFile(logFile, 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      const defect = defectOf(line);
      if (defect === undefined) continue;
      total += 1;
      if (defects.length < REPORTED_DEFECTS) defects.push(`[${name}] ${defect}`);
    }
  }
  if (total === 0) return undefined;
  const shown = total > defects.length ? ` (the first ${defects.length})` : '';
  return `The servers logged ${total} unexpected error(s)${shown}:\n${defects.join('\n')}`;
}

/** A log line's error, with its time, request id and stack, when the line is a logged defect. */
function defectOf(line: string): string | undefined {
  if (!line.startsWith('{') || !line.includes('"err"')) return undefined;
  let entry: { level?: unknown; time?: unknown; reqId?: unknown; msg?: unknown; err?: { stack?: unknown; message?: unknown } };
  try {
    entry = JSON.parse(line) as typeof entry;
  } catch {
    return undefined;
  }
  if (typeof entry.level !== 'number' || entry.level < 50 || entry.err === undefined) return undefined;
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString() : 'at an unknown time';
  const request = typeof entry.reqId === 'string' ? ` request ${entry.reqId}` : '';
  const stack = typeof entry.err.stack === 'string' ? entry.err.stack : String(entry.err.message ?? entry.msg);
  return `${time}${request}: ${stack.split('\n').slice(0, STACK_LINES).join('\n    ')}`;
}
