import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from './loopback-port';
import { describeUnexpectedExit, ServiceProcess, type UnexpectedExit } from './service-process';

/** A process as small as a service: says hello, then answers `/health/ready` on GUIDEPOST_PORT. */
const READY_SERVER = `
const { createServer } = require('node:http');
createServer((request, response) => response.end('ok')).listen(Number(process.env.GUIDEPOST_PORT), '127.0.0.1', () => {
  console.log('hello from pid ' + process.pid);
  console.error('serving on ' + process.env.GUIDEPOST_PORT);
});
`;

describe('ServiceProcess (the launcher of the tests, the benchmark and the suite)', () => {
  let workDir: string;
  let launched: ServiceProcess | undefined;
  const reports: UnexpectedExit[] = [];

  beforeEach(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'service-process-'));
    await writeFile(join(workDir, 'server.js'), READY_SERVER);
    reports.length = 0;
  });

  afterEach(async () => {
    await launched?.stop('SIGKILL');
    launched = undefined;
    await rm(workDir, { recursive: true, force: true });
  });

  async function started(options: { processGroup?: boolean } = {}): Promise<ServiceProcess> {
    const port = await freeLoopbackPort();
    launched = new ServiceProcess({
      name: 'gateway',
      entryPoint: join(workDir, 'server.js'),
      port,
      env: { ...process.env, GUIDEPOST_PORT: String(port) },
      logFile: join(workDir, 'gateway.log'),
      cwd: workDir,
      buildLock: join(workDir, 'dist', '.build.lock'),
      readyTimeoutMs: 10_000,
      onUnexpectedExit: (exit) => reports.push(exit),
      ...options,
    });
    await launched.start();
    return launched;
  }

  it.each([false, true])(
    'reports a child killed from outside by name, signal and the end of its output (own process group: %s)',
    async (processGroup) => {
      const gateway = await started({ processGroup });
      const pid = gateway.pid!;

      process.kill(pid, 'SIGKILL');
      await waitFor(() => reports.length > 0);

      expect(reports).toEqual([expect.objectContaining({ name: 'gateway', pid, code: null, signal: 'SIGKILL', logFile: gateway.logFile })]);
      expect(reports[0].logTail).toContain(`hello from pid ${pid}`);
      expect(reports[0].logTail).toContain(`serving on ${gateway.port}`);
      expect(describeUnexpectedExit(reports[0])).toMatch(
        new RegExp(`^gateway \\(pid ${pid}\\) exited unexpectedly with signal SIGKILL; last lines of .+gateway\\.log:\\n`),
      );
      expect(gateway.running).toBe(false);
    },
  );

  it('reports a child that exits by itself with its exit code', async () => {
    await writeFile(
      join(workDir, 'server.js'),
      `${READY_SERVER}\nsetTimeout(() => { console.error('giving up'); process.exit(3); }, 1500);`,
    );
    await started();

    await waitFor(() => reports.length > 0);

    expect(reports[0]).toMatchObject({ name: 'gateway', code: 3, signal: null });
    expect(describeUnexpectedExit(reports[0])).toContain('exited unexpectedly with exit code 3');
    expect(reports[0].logTail).toContain('giving up');
  });

  it('reports nothing for a stop it was asked for, and starts again on the same port', async () => {
    const gateway = await started();
    const firstPid = gateway.pid;

    expect(await gateway.stop('SIGKILL')).toMatchObject({ signal: 'SIGKILL', killed: false });
    await gateway.start();
    expect(await (await fetch(`${gateway.url}/health/ready`)).text()).toBe('ok');
    expect(await gateway.stop()).toMatchObject({ signal: 'SIGTERM' });

    expect(gateway.pid).not.toBe(firstPid);
    expect(reports).toEqual([]);
  });

  it('fails the start of a child that dies before it is ready with its output, without reporting it again', async () => {
    await writeFile(join(workDir, 'server.js'), `console.error('bad configuration'); process.exit(2);`);

    await expect(started()).rejects.toThrow(/^gateway exited with code 2 before it was ready:\n.*bad configuration/s);
    expect(reports).toEqual([]);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition did not hold in time');
    await new Promise((done) => setTimeout(done, 50));
  }
}
