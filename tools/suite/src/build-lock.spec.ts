import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { buildLockOf, whileBuildUnchanged } from './build-lock';

/** The build lock as scripts/build.sh holds it (flock on the same file), seen from a process starting from dist/. */
describe('the build lock', () => {
  let root: string;
  let lock: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'build-lock-'));
    lock = buildLockOf(root);
    await mkdir(dirname(lock));
  });

  afterEach(() => rm(root, { recursive: true, force: true }));

  it('lets a process start only once a build under way has written everything', async () => {
    const written = join(root, 'written');
    // A build: holds the lock exclusively, writes its last file after a moment, then lets go.
    const build = spawn('flock', [lock, '-c', `echo locked; sleep 0.5; touch ${written}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await once(build.stdout, 'data');

    const sawTheWholeBuild = await whileBuildUnchanged(lock, () => Promise.resolve(existsSync(written)));

    expect(sawTheWholeBuild).toBe(true);
  });

  it('keeps a build out while a process starts, and lets it in afterwards', async () => {
    const tryToBuild = () =>
      promisify(execFile)('flock', ['--nonblock', lock, 'true']).then(
        () => 'built',
        () => 'refused',
      );

    const duringStart = await whileBuildUnchanged(lock, tryToBuild);

    expect(duringStart).toBe('refused');
    expect(await tryToBuild()).toBe('built');
  });
});
