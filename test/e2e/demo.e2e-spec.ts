import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { basicAuthorization, eventually, startServer, type RunningServer } from './support';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the launcher type of the harness's one process launcher
import type { ProcessLauncher } from '../../tools/suite/src/service-process';

interface DemoKey {
  readonly key: string;
  readonly secret: string;
}

/**
 * A demo start (`GUIDEPOST_DEMO=true`) gives the demo account one key at a time: each start from a
 * terminal revokes the previous start's key and shows the new key's secret once, on the terminal, never
 * on stdout or stderr (which a log may keep); a start without a terminal shows no secret and leaves
 * the key as it is. The servers here run on one data folder of this file's own.
 */
describe('a demo start', () => {
  let folder: string;
  let dataDir: string;
  /** Where the server's stdout and stderr go when it runs from a terminal. */
  let serverOutput: string;
  let lastKey: DemoKey;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'guidepost-demo-'));
    dataDir = join(folder, 'data');
    serverOutput = join(folder, 'server-output.log');
  });

  afterAll(() => rm(folder, { recursive: true, force: true }));

  it("shows each new key's secret on the terminal only, and revokes the previous start's key", async () => {
    const running = await startServer({ dataDir, env: { GUIDEPOST_DEMO: 'true' }, launcher: fromTerminal(serverOutput) });
    try {
      const first = await demoKeyShown(running, 1);
      expect(await demoFlowsStatus(running, first)).toBe(200);

      await running.terminate();
      await running.start();
      lastKey = await demoKeyShown(running, 2);

      expect(lastKey.key).not.toBe(first.key);
      expect(await demoFlowsStatus(running, first)).toBe(401);
      expect(await demoFlowsStatus(running, lastKey)).toBe(200);
      const output = await readFile(serverOutput, 'utf8');
      expect(output).toContain(`Demo account 'demo': key ${lastKey.key} (its secret is shown on the terminal only)`);
      for (const { secret } of [first, lastKey]) expect(output).not.toContain(secret);
    } finally {
      await running.stop();
    }
  }, 240_000);

  it('shows no secret without a terminal, and leaves the last key working', async () => {
    const running = await startServer({ dataDir, env: { GUIDEPOST_DEMO: 'true' } });
    try {
      const output = await eventually(async () => {
        const text = await readFile(running.logFile, 'utf8');
        expect(text).toContain("Demo account 'demo': no terminal to show a new key's secret on");
        return text;
      }, 30_000);

      expect(output).not.toMatch(/secret [\w-]{20,}/);
      expect(await demoFlowsStatus(running, lastKey)).toBe(200);
    } finally {
      await running.stop();
    }
  }, 180_000);
});

/**
 * Runs the server from a terminal of its own (a pseudo-terminal of util-linux's `script`) with its
 * stdout and stderr appended to `output`: the harness's log of the process then holds what reached the
 * terminal alone. `script` passes a SIGTERM on to the server.
 */
function fromTerminal(output: string): ProcessLauncher {
  return (run) => ({
    command: 'script',
    args: [
      '--quiet',
      '--return',
      '--flush',
      '--command',
      `exec ${shellWord(process.execPath)} ${shellWord(run.entryPoint)} >>${shellWord(output)} 2>&1`,
      '/dev/null',
    ],
  });
}

function shellWord(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The `count`-th demo key shown on the server's terminal (the server shows it just after it is ready). */
function demoKeyShown(running: RunningServer, count: number): Promise<DemoKey> {
  return eventually(async () => {
    const shown = [...(await readFile(running.logFile, 'utf8')).matchAll(/Demo account 'demo': key (\S+) secret (\S+)/g)];
    expect(shown.length).toBeGreaterThanOrEqual(count);
    const [, key, secret] = shown[count - 1];
    return { key, secret };
  }, 30_000);
}

async function demoFlowsStatus(running: RunningServer, demo: DemoKey): Promise<number> {
  const response = await fetch(`${running.baseUrl}/v2/accounts/demo/flows`, {
    headers: { Authorization: basicAuthorization(demo.key, demo.secret) },
  });
  await response.arrayBuffer();
  return response.status;
}
