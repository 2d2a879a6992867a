import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

/** The lock `scripts/build.sh` holds exclusively while it writes `dist/` (relative to the repository). */
export function buildLockOf(repositoryRoot: string): string {
  return join(repositoryRoot, 'dist', '.build.lock');
}

/**
 * Runs `work` (starting a process from `dist/` until it is ready) while holding the build lock shared:
 * a build waits for it, and it waits for a build under way, so the process never loads a half-written
 * `dist/`. Held through `flock(1)`, as the build script holds it: a child that keeps the lock while its
 * standard input is open, so the lock also goes when this process dies.
 */
export async function whileBuildUnchanged<T>(lockFile: string, work: () => Promise<T>): Promise<T> {
  await mkdir(dirname(lockFile), { recursive: true });
  const holder = spawn('flock', ['--shared', lockFile, '-c', 'echo held; exec cat'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = once(holder, 'exit');
  const held = await Promise.race([
    once(holder.stdout, 'data').then(([chunk]) => String(chunk)),
    exited.then(([code]) => Promise.reject(new Error(`flock --shared ${lockFile} exited with ${String(code)} before holding the lock`))),
  ]);
  if (!held.startsWith('held')) throw new Error(`flock --shared ${lockFile} said ${held}`);
  try {
    return await work();
  } finally {
    holder.stdin.end();
    await exited;
  }
}

/**
 * Brings `dist/` up to date with the sources before anything starts from it: `scripts/build.sh`,
 * incremental (a few seconds when nothing changed) and under the build lock. Rejects with the
 * compiler's output when the build fails, so a test run never starts yesterday's code.
 */
export async function buildDist(repositoryRoot: string): Promise<void> {
  try {
    await promisify(execFile)(join(repositoryRoot, 'scripts', 'build.sh'), [], { cwd: repositoryRoot, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`scripts/build.sh failed: the build in dist/ would not match the sources.\n${stdout}${stderr}`);
  }
}
