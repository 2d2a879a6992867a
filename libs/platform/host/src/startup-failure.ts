import { createServer } from 'node:net';
import { ConfigurationError, StartupError } from '@guidepost/platform-config';

/** What a failed start-up is reported as: what is wrong, and what to do about it. */
interface Diagnosis {
  readonly problem: string;
  readonly fix: string;
}

/** Node's system errors (`listen`, `mkdir`, `connect`, ...) carry these. */
interface SystemError extends Error {
  readonly code?: string;
  readonly syscall?: string;
  readonly path?: string;
  readonly address?: string;
  readonly port?: number;
  readonly hostname?: string;
}

const FILE_PROBLEMS: Record<string, (path: string) => string> = {
  EACCES: (path) => `this user may not write ${path} (permission denied)`,
  EPERM: (path) => `this user may not write ${path} (operation not permitted)`,
  EROFS: (path) => `${path} is on a read-only file system`,
  ENOTDIR: (path) => `part of ${path} is a file where a folder is needed`,
  EISDIR: (path) => `${path} is a folder where a file is needed`,
  ENOSPC: (path) => `the disk holding ${path} is full`,
};

/**
 * The one line a host prints when it cannot start, instead of a stack trace:
 * `<name> cannot start: <what is wrong>. Fix: <what to do>.` Known failures (the configuration, a port
 * in use, a data folder that cannot be written, a server that does not answer, `StartupError`s such as
 * the embedded PostgreSQL's) are named with their fix; anything else by its message.
 */
export function startupFailureLine(name: string, error: unknown): string {
  const { problem, fix } = diagnose(error);
  return `${name} cannot start: ${oneLine(problem)}. Fix: ${oneLine(fix)}.`;
}

function diagnose(error: unknown): Diagnosis {
  if (error instanceof StartupError) return { problem: error.problem, fix: error.fix };
  if (error instanceof ConfigurationError) {
    return {
      problem: `invalid configuration: ${error.problems.join('; ')}`,
      fix: 'correct these environment variables (README.md lists every setting and its default)',
    };
  }
  const system = systemErrorIn(error);
  if (system) {
    const known = diagnoseSystemError(system);
    if (known) return known;
  }
  return { problem: messageOf(error).replace(/\.$/, ''), fix: 'run again with GUIDEPOST_LOG_LEVEL=debug to see where it failed' };
}

function diagnoseSystemError(error: SystemError): Diagnosis | undefined {
  const { code, syscall, path, address, port } = error;
  if (syscall === 'listen' || syscall === 'bind') {
    const where = port === undefined ? `${address ?? 'the address'}` : `port ${port} on ${address ?? 'every interface'}`;
    if (code === 'EADDRINUSE') {
      return { problem: `${where} is already in use by another process`, fix: 'stop that process, or set GUIDEPOST_PORT to a free port' };
    }
    if (code === 'EADDRNOTAVAIL') {
      return {
        problem: `cannot listen on ${address ?? 'the address'}: it is not an address of this machine`,
        fix: 'set GUIDEPOST_HOST to an address of this machine (127.0.0.1, or 0.0.0.0 for every interface)',
      };
    }
    if (code === 'EACCES') {
      return {
        problem: `this user may not listen on ${where}`,
        fix: 'set GUIDEPOST_PORT to a port above 1023, or grant the privilege to bind it',
      };
    }
  }
  if (path !== undefined && code !== undefined && code in FILE_PROBLEMS) {
    return {
      problem: FILE_PROBLEMS[code](path),
      fix:
        code === 'ENOSPC'
          ? 'free some space on that disk, or set GUIDEPOST_DATA_DIR to a folder on another one'
          : 'set GUIDEPOST_DATA_DIR to a folder this user can write, or give this user write access to it',
    };
  }
  if (syscall === 'connect' && (code === 'ECONNREFUSED' || code === 'ETIMEDOUT' || code === 'EHOSTUNREACH')) {
    return {
      problem: `nothing answers at ${address ?? 'a configured server'}${port === undefined ? '' : `:${port}`} (${code})`,
      fix: 'start that server, or correct the setting that points at it (GUIDEPOST_DATABASE_URL, GUIDEPOST_KAFKA_BROKERS, GUIDEPOST_CLICKHOUSE_URL, GUIDEPOST_S3_ENDPOINT, ...)',
    };
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return {
      problem: error.hostname ? `the host name ${error.hostname} does not resolve` : 'a configured host name does not resolve',
      fix: "correct the setting that names it, or check this machine's DNS",
    };
  }
  return undefined;
}

/**
 * The system error behind `error`: itself, its cause, or the first of an AggregateError (Node's
 * connection attempts). Judged by shape, not class: Node's errors may come from another realm.
 */
function systemErrorIn(error: unknown, depth = 0): SystemError | undefined {
  if (typeof error !== 'object' || error === null || depth > 3) return undefined;
  const candidate = error as SystemError & { errors?: unknown; cause?: unknown };
  if (typeof candidate.code === 'string' && typeof candidate.syscall === 'string') return candidate;
  if (Array.isArray(candidate.errors) && candidate.errors.length > 0) return systemErrorIn(candidate.errors[0], depth + 1);
  return systemErrorIn(candidate.cause, depth + 1);
}

function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : String(error);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * Fails at once, with the listen error a late `listen` would give, when the port is taken: found
 * before the host starts anything (the embedded PostgreSQL, consumers) that it would have to undo.
 */
export function assertPortAvailable(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}
