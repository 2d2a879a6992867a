import { readFile } from 'node:fs/promises';

/** At most this many are told, the first ones: the rest are usually the same one again. */
const REPORTED_FAILURES = 10;
/** Stack lines kept per error: where it was thrown and what called it. */
const STACK_LINES = 12;
/** How `ProblemDetailsFilter` logs a 5xx other than 500 (a warning of one line, with its reason). */
const SERVER_ERROR_ANSWER = /^[A-Z]+ (\S+) answered 5\d\d: /;
/** Readiness probes answer 503 while a process starts or stops: no failure of a request. */
const PROBE_PATH = /^\/health\//;

/** A server's log file and the name it is told by. */
export interface ServerLog {
  readonly name: string;
  readonly logFile: string;
}

/**
 * What the servers logged about their 5xx answers: every error of level `error` or above (pino: 50)
 * that carries an `err`, which is how a 500 is logged (`ProblemDetailsFilter`: its stack, nothing of it
 * in the answer), and every other 5xx with its reason (a store or service unavailable). A suite that met
 * one prints this before its servers stop, so a 5xx found on a CI machine, whose logs are gone with it,
 * comes with its cause. Undefined when there was none.
 */
export async function loggedFailures(logs: readonly ServerLog[]): Promise<string | undefined> {
  const failures: string[] = [];
  let total = 0;
  for (const { name, logFile } of logs) {
    const text = await readFile(logFile, 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      const failure = failureOf(line);
      if (failure === undefined) continue;
      total += 1;
      if (failures.length < REPORTED_FAILURES) failures.push(`[${name}] ${failure}`);
    }
  }
  if (total === 0) return undefined;
  const shown = total > failures.length ? ` (the first ${failures.length})` : '';
  return `The servers logged ${total} error(s) or 5xx answer(s)${shown}:\n${failures.join('\n')}`;
}

interface LogEntry {
  readonly level?: unknown;
  readonly time?: unknown;
  readonly reqId?: unknown;
  readonly msg?: unknown;
  readonly err?: { readonly stack?: unknown; readonly message?: unknown };
}

/** A log line's error or 5xx answer, with its time and request id; undefined for any other line. */
function failureOf(line: string): string | undefined {
  if (!line.startsWith('{')) return undefined;
  let entry: LogEntry;
  try {
    entry = JSON.parse(line) as LogEntry;
  } catch {
    return undefined;
  }
  const what = errorOf(entry) ?? serverErrorAnswerOf(entry);
  if (what === undefined) return undefined;
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString() : 'at an unknown time';
  const request = typeof entry.reqId === 'string' ? ` request ${entry.reqId}` : '';
  return `${time}${request}: ${what}`;
}

function errorOf(entry: LogEntry): string | undefined {
  if (typeof entry.level !== 'number' || entry.level < 50 || entry.err === undefined) return undefined;
  const stack = typeof entry.err.stack === 'string' ? entry.err.stack : String(entry.err.message ?? entry.msg);
  return stack.split('\n').slice(0, STACK_LINES).join('\n    ');
}

function serverErrorAnswerOf(entry: LogEntry): string | undefined {
  if (typeof entry.msg !== 'string') return undefined;
  const answer = SERVER_ERROR_ANSWER.exec(entry.msg);
  return answer === null || PROBE_PATH.test(answer[1]) ? undefined : entry.msg;
}

/** Writes `loggedFailures` to standard output (where a CI run keeps it), when there is anything to tell. */
export async function printLoggedFailures(logs: readonly ServerLog[]): Promise<void> {
  const report = await loggedFailures(logs);
  if (report !== undefined) process.stdout.write(`\n${report}\n`);
}
