import { execFile, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createAccount, server, upsert, type TestAccount } from './support';

/**
 * The schema-driven fuzz test of the public API: schemathesis (pinned, installed into the cache by
 * scripts/schemathesis/install.sh) generates valid and invalid requests for every operation of the
 * served OpenAPI document, `GET /openapi.json`, and checks every answer: no 5xx, and status, content
 * type, headers and body as the document describes them (test/e2e/schemathesis/schemathesis.toml).
 * It runs against whichever server the project points the suite at: the standalone process (e2e) and
 * the gateway of the distributed suite (e2e-distributed), with a fresh account, its API key (Basic
 * auth) and seeded content. Whatever it finds is a defect of the server or of the document.
 *
 * `GUIDEPOST_FUZZ_SEED` replays a run (its seed is in every failure's message); the seed is random
 * otherwise, so each run explores anew. `GUIDEPOST_FUZZ_MAX_EXAMPLES` changes the examples per
 * operation and phase (the configuration's 25 took 6.3 minutes for 66 operations on a busy 2-core machine).
 */

const REPO_ROOT = resolve(__dirname, '..', '..');
const INSTALL_SCRIPT = join(REPO_ROOT, 'scripts', 'schemathesis', 'install.sh');
const CONFIG_FILE = join(__dirname, 'schemathesis', 'schemathesis.toml');
const HOOKS_FILE = join(__dirname, 'schemathesis', 'hooks.py');
/** A first install downloads about 30 packages from PyPI. */
const INSTALL_TIMEOUT_MS = 5 * 60_000;
/** A run of 66 operations took 6.3 minutes on a busy 2-core machine; past this it is stopped and fails. */
const RUN_TIMEOUT_MS = 12 * 60_000;
const REPORT_LIMIT = 30_000;

/** Content the public API only reads: the configuration pins these ids, so reads and publishing reach a record. */
const CONTENT = { tag: 'fuzz-tag', flow: 'fuzz-flow', pin: 'fuzz-pin', mobile: 'fuzz-mobile', studio: 'fuzz-studio' } as const;
/** The experience kinds whose records are the studio's documents: one seeded record each, under `CONTENT.studio`. */
const STUDIO_KINDS = ['launchpads', 'banners', 'checklists', 'flows-v2', 'embeds', 'nps'] as const;

let st: string;
let account: TestAccount;

beforeAll(async () => {
  // No skip: a machine without Python 3.11 fails here, saying so.
  const { stdout } = await promisify(execFile)(INSTALL_SCRIPT, [], { cwd: REPO_ROOT, timeout: INSTALL_TIMEOUT_MS });
  st = stdout.trim().split('\n').pop() ?? '';
  account = await createAccount(`schemathesis ${new Date().toISOString()}`);
  await upsert(account, 'tags', [{ id: CONTENT.tag, name: 'Fuzzed tag' }]);
  await upsert(account, 'flows', [{ id: CONTENT.flow, name: 'Fuzzed flow', tag_ids: [CONTENT.tag] }]);
  await upsert(account, 'pins', [
    {
      id: CONTENT.pin,
      name: 'Fuzzed pin',
      tag_ids: [CONTENT.tag],
      steps: [{ id: 'step-1', name: 'Hello', content: { html: '<p>Hi</p>' } }],
    },
  ]);
  await upsert(account, 'mobile', [{ id: CONTENT.mobile, name: 'Fuzzed mobile experience' }]);
  for (const kind of STUDIO_KINDS) {
    await upsert(account, kind, [
      { id: CONTENT.studio, name: `Fuzzed ${kind}`, type: kind, steps: [{ id: 'step-1' }], studio_only: { x: 1 } },
    ]);
  }
}, INSTALL_TIMEOUT_MS + 60_000);

it(
  'answers every generated request, valid or not, without a 5xx and as the OpenAPI document describes',
  async () => {
    const { baseUrl } = server();
    const operations = await documentedOperations(baseUrl);
    const seed = process.env['GUIDEPOST_FUZZ_SEED'] ?? String(randomInt(1, 2 ** 31));
    const run = await runSchemathesis(baseUrl, seed);
    const replay = `replay: GUIDEPOST_FUZZ_SEED=${seed} (full output: ${run.logFile})`;
    if (run.exitCode !== 0) {
      throw new Error(`schemathesis failed (exit code ${String(run.exitCode)}; ${replay}):\n${report(run.output)}`);
    }
    // A run that selected nothing would pass too: every documented operation must have been tested.
    expect({ tested: testedOperations(run.output), replay }).toEqual({ tested: operations, replay });
    await rm(run.workDir, { recursive: true, force: true });
  },
  RUN_TIMEOUT_MS + 30_000,
);

interface SchemathesisRun {
  readonly exitCode: number | null;
  readonly output: string;
  readonly workDir: string;
  readonly logFile: string;
}

async function runSchemathesis(baseUrl: string, seed: string): Promise<SchemathesisRun> {
  // Its own folder: schemathesis writes caches and reports into the working directory.
  const workDir = await mkdtemp(join(tmpdir(), 'guidepost-schemathesis-'));
  const logFile = join(workDir, 'schemathesis.log');
  const args = ['--config-file', CONFIG_FILE, 'run', `${baseUrl}/openapi.json`, '--url', baseUrl, '--seed', seed, '--no-color'];
  const maxExamples = process.env['GUIDEPOST_FUZZ_MAX_EXAMPLES'];
  if (maxExamples) args.push('--max-examples', maxExamples);
  const child = spawn(st, args, {
    cwd: workDir,
    env: {
      ...process.env,
      GUIDEPOST_FUZZ_ACCOUNT_ID: account.id,
      GUIDEPOST_FUZZ_API_KEY: account.key,
      GUIDEPOST_FUZZ_API_SECRET: account.secret,
      GUIDEPOST_FUZZ_TAG_ID: CONTENT.tag,
      GUIDEPOST_FUZZ_FLOW_ID: CONTENT.flow,
      GUIDEPOST_FUZZ_PIN_ID: CONTENT.pin,
      GUIDEPOST_FUZZ_MOBILE_ID: CONTENT.mobile,
      GUIDEPOST_FUZZ_STUDIO_ID: CONTENT.studio,
      SCHEMATHESIS_HOOKS: HOOKS_FILE,
      // No __pycache__ beside the hooks in the checkout.
      PYTHONDONTWRITEBYTECODE: '1',
      COLUMNS: '160',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(logFile);
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  const exitCode = await new Promise<number | null>((done) => child.once('close', (code) => done(code)));
  clearTimeout(timer);
  await new Promise<void>((done) => log.end(done));
  const output = await readFile(logFile, 'utf8');
  if (exitCode === null)
    throw new Error(`schemathesis did not finish within ${RUN_TIMEOUT_MS / 60_000} minutes (seed ${seed}):\n${report(output)}`);
  return { exitCode, output, workDir, logFile };
}

/** How many operations the server's document describes. */
async function documentedOperations(baseUrl: string): Promise<number> {
  const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const methods = new Set(['get', 'put', 'post', 'delete', 'patch']);
  return Object.values(document.paths).reduce((count, item) => count + Object.keys(item).filter((key) => methods.has(key)).length, 0);
}

/** The number in the summary's `Tested: N` line. */
function testedOperations(output: string): number | undefined {
  const match = /^\s*Tested:\s*(\d+)\s*$/m.exec(output);
  return match ? Number(match[1]) : undefined;
}

/** The part of the output that explains a failure: from its FAILURES or ERRORS section on, bounded. */
function report(output: string): string {
  const start = output.search(/^=+ (FAILURES|ERRORS) =+$/m);
  const relevant = start >= 0 ? output.slice(start) : output;
  return relevant.length > REPORT_LIMIT ? `${relevant.slice(0, REPORT_LIMIT)}\n... (cut; the log file has it all)` : relevant;
}
