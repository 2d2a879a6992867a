import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { Agent, fetch } from 'undici';
import { eventually, startServer, type RunningServer } from './support';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the certificates of the tests, made by the machine's openssl
import { issueSelfSignedCertificate, type SelfSignedCertificate } from '../../tools/suite/src/self-signed-certificate';

/**
 * The standalone server given a certificate (GUIDEPOST_TLS_CERT_FILE, GUIDEPOST_TLS_KEY_FILE): HTTPS
 * only, links that say https, a renewal served without a restart, a pair that cannot be served left
 * alone. The files are laid out as certbot lays them out: links in `live/` to numbered files in
 * `archive/`, a renewal pointing the links at new files one after the other. This file runs its own
 * server; the one-line refusals at start are in start-up.e2e-spec.ts.
 */
describe('HTTPS', () => {
  const first = issueSelfSignedCertificate('first');
  const second = issueSelfSignedCertificate('second');
  const third = issueSelfSignedCertificate('third');
  let folder: string;
  let running: RunningServer;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'guidepost-tls-e2e-'));
    await mkdir(join(folder, 'archive'));
    await mkdir(join(folder, 'live'));
    await store(1, first);
    await pointAt('cert', 1);
    await pointAt('key', 1);
    running = await startServer({
      env: {
        GUIDEPOST_TLS_CERT_FILE: join(folder, 'live', 'cert.pem'),
        GUIDEPOST_TLS_KEY_FILE: join(folder, 'live', 'key.pem'),
        GUIDEPOST_TLS_RELOAD_INTERVAL_MS: '1000',
        // The demo seed calls the server's own API, which a self-signed certificate must not stop.
        GUIDEPOST_DEMO: 'true',
      },
      trustedCertificate: first.cert,
    });
  });

  afterAll(async () => {
    await running?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  /** `archive/<file><n>.pem` of a pair. */
  async function store(generation: number, pair: SelfSignedCertificate): Promise<void> {
    await writeFile(join(folder, 'archive', `cert${generation}.pem`), pair.cert);
    await writeFile(join(folder, 'archive', `key${generation}.pem`), pair.key);
  }

  /** Points `live/<file>.pem` at `archive/<file><n>.pem` in one rename, as certbot does. */
  async function pointAt(file: 'cert' | 'key', generation: number): Promise<void> {
    const link = join(folder, 'live', `${file}.pem`);
    await symlink(join('..', 'archive', `${file}${generation}.pem`), `${link}.new`);
    await rename(`${link}.new`, link);
  }

  function port(): number {
    return Number(new URL(running.baseUrl).port);
  }

  /** The fingerprint of the certificate a new connection is shown. */
  function servedFingerprint(): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: port(), rejectUnauthorized: false }, () => {
        resolve(socket.getPeerCertificate().fingerprint256);
        socket.end();
      });
      socket.once('error', reject);
    });
  }

  /** A request over HTTPS that trusts only `pair`, on a connection of its own. */
  async function request(
    pair: SelfSignedCertificate,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<{ status: number; json: unknown }> {
    const dispatcher = new Agent({ connect: { ca: pair.cert } });
    try {
      const response = await fetch(`${running.baseUrl}${path}`, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher,
      });
      return { status: response.status, json: await response.json() };
    } finally {
      await dispatcher.close();
    }
  }

  function asAdmin(pair: SelfSignedCertificate, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    return request(pair, method, path, { authorization: `Bearer ${running.adminToken}` }, body);
  }

  it('serves the API over HTTPS only, and the links it writes say https', async () => {
    const account = await asAdmin(first, 'POST', '/admin/v1/accounts', { name: 'tls' });
    expect(account.status).toBe(201);
    const id = (account.json as { id: string }).id;
    const key = (await asAdmin(first, 'POST', `/admin/v1/accounts/${id}/api_keys`)).json as { key: string; secret: string };

    const deletion = await request(first, 'DELETE', `/v2/accounts/${id}/users/u-1/profile`, {
      authorization: `Basic ${Buffer.from(`${key.key}:${key.secret}`).toString('base64')}`,
    });

    expect(deletion).toMatchObject({
      status: 202,
      json: { job_url: expect.stringMatching(`^https://127\\.0\\.0\\.1:${port()}/v2/accounts/${id}/jobs/`) },
    });
    await expect(globalThis.fetch(`http://127.0.0.1:${port()}/health/live`)).rejects.toThrow();
  });

  it('serves a renewed certificate to new connections without a restart', async () => {
    const pid = running.pid();
    await store(2, second);
    await pointAt('cert', 2);
    await pointAt('key', 2);

    await eventually(async () => expect(await servedFingerprint()).toBe(second.fingerprint));
    expect((await asAdmin(second, 'GET', '/admin/v1/accounts')).status).toBe(200);
    expect(running.pid()).toBe(pid);
  });

  it('keeps serving its certificate when the files are replaced by a pair that does not match, and logs why', async () => {
    await store(3, third);
    // A renewal that has pointed the key at its new file, and the certificate not yet.
    await pointAt('key', 3);

    await eventually(async () =>
      expect(await readFile(running.logFile, 'utf8')).toMatch(
        /the certificate files cannot be served as they are, so the server keeps serving CN=second .+ is not the key of the certificate/,
      ),
    );
    expect(await servedFingerprint()).toBe(second.fingerprint);
    expect((await asAdmin(second, 'GET', '/admin/v1/accounts')).status).toBe(200);
  });
});
