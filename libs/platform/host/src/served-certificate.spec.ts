import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { Controller, Get, Logger, Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { type AppConfig, loadConfig, PlatformConfigModule, StartupError } from '@guidepost/platform-config';
import { PlatformHttpModule } from '@guidepost/platform-http';
import { ObservabilityModule } from '@guidepost/platform-observability';
import { createHttpApplication } from './http-application';
import { readCertificatePair, ServedCertificate, UnusableCertificate } from './served-certificate';
import { startupFailureLine } from './startup-failure';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the test tool that makes certificates, shared with the e2e suite
import { issueSelfSignedCertificate, type SelfSignedCertificate } from '../../../../tools/suite/src/self-signed-certificate';

/** Where a pair is kept as a Kubernetes Secret volume keeps it: files behind a `..data` link to the current folder. */
class CertificateFolder {
  private generation = 0;

  constructor(readonly path: string) {}

  get certFile(): string {
    return join(this.path, 'tls.crt');
  }

  get keyFile(): string {
    return join(this.path, 'tls.key');
  }

  /** The first pair, and the links to it. */
  async create(pair: SelfSignedCertificate): Promise<void> {
    await this.writeGeneration(pair);
    await symlink(`..${this.generation}`, join(this.path, '..data'));
    await symlink('..data/tls.crt', this.certFile);
    await symlink('..data/tls.key', this.keyFile);
  }

  /** A renewal as the kubelet makes it: a new folder, then `..data` swapped to it in one rename. */
  async swapTo(pair: SelfSignedCertificate): Promise<void> {
    await this.writeGeneration(pair);
    await symlink(`..${this.generation}`, join(this.path, '..data_tmp'));
    await rename(join(this.path, '..data_tmp'), join(this.path, '..data'));
  }

  /** Writes over the current files in place, as a careless copy does. */
  async overwrite(files: { cert?: string; key?: string }): Promise<void> {
    if (files.cert !== undefined) await writeFile(this.certFile, files.cert);
    if (files.key !== undefined) await writeFile(this.keyFile, files.key);
  }

  private async writeGeneration(pair: SelfSignedCertificate): Promise<void> {
    this.generation += 1;
    const folder = join(this.path, `..${this.generation}`);
    await mkdir(folder);
    await writeFile(join(folder, 'tls.crt'), pair.cert);
    await writeFile(join(folder, 'tls.key'), pair.key);
  }
}

@Controller('hello')
class HelloController {
  @Get()
  hello(): { hello: 'world' } {
    return { hello: 'world' };
  }
}

function configOf(folder: CertificateFolder): AppConfig {
  return loadConfig({
    GUIDEPOST_LOG_LEVEL: 'silent',
    GUIDEPOST_TLS_CERT_FILE: folder.certFile,
    GUIDEPOST_TLS_KEY_FILE: folder.keyFile,
    GUIDEPOST_TLS_RELOAD_INTERVAL_MS: '1000',
    // Short, so that a test sees Node's timeout checks run as often as the platform sets them.
    GUIDEPOST_REQUEST_TIMEOUT_MS: '1000',
  });
}

async function serve(config: AppConfig): Promise<{ app: NestFastifyApplication; port: number }> {
  @Module({ imports: [PlatformConfigModule.forRoot(config), PlatformHttpModule, ObservabilityModule], controllers: [HelloController] })
  class TestModule {}
  const app = await createHttpApplication({ module: TestModule }, config, { certificate: await ServedCertificate.load(config.tls!) });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  return { app, port };
}

/** The fingerprint of the certificate a new connection is shown. */
function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.once('error', reject);
  });
}

interface Answer {
  readonly status: number;
  readonly body: string;
}

function getOverHttps(port: number, trusted: SelfSignedCertificate): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest({ host: '127.0.0.1', port, path: '/hello', ca: trusted.cert, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.once('error', reject);
    request.end();
  });
}

/** The status line a request whose headers never end is answered with, over TLS. */
function statusOfUnfinishedRequest(port: number, trusted: SelfSignedCertificate): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect({ host: '127.0.0.1', port, ca: trusted.cert }, () => socket.write('GET /hello HTTP/1.1\r\nHost: x\r\n'));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.once('close', () => resolve(received.split('\r\n')[0]));
    socket.once('error', reject);
    // Unanswered, the connection would outlive the server's close (which stops Node's checks).
    socket.setTimeout(4_000, () => socket.destroy());
  });
}

function getOverHttp(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, path: '/hello', agent: false }, (response) => resolve(response.statusCode ?? 0));
    request.once('error', reject);
    request.end();
  });
}

/** Polls until `probe` gives `expected`, or gives what it gave last after `timeoutMs`. */
async function eventually<T>(probe: () => Promise<T>, expected: T, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let seen = await probe();
  while (seen !== expected && Date.now() < deadline) {
    await new Promise((done) => setTimeout(done, 100));
    seen = await probe();
  }
  return seen;
}

describe('ServedCertificate', () => {
  let first: SelfSignedCertificate;
  let second: SelfSignedCertificate;
  let third: SelfSignedCertificate;
  let root: string;
  let folder: CertificateFolder;

  beforeAll(() => {
    [first, second, third] = ['first', 'second', 'third'].map(issueSelfSignedCertificate);
  });

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'guidepost-tls-'));
    folder = new CertificateFolder(root);
    await folder.create(first);
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await rm(root, { recursive: true, force: true });
  });

  describe('at start-up', () => {
    it('reads a certificate and its key', async () => {
      const pair = await readCertificatePair(configOf(folder).tls!);

      expect(pair.fingerprint).toBe(first.fingerprint);
      expect(pair.subject).toBe('CN=first');
    });

    it.each([
      [
        "a key that is not the certificate's",
        () => folder.overwrite({ key: second.key }),
        /^the key in GUIDEPOST_TLS_KEY_FILE \(\S+tls\.key\) is not the key of the certificate in GUIDEPOST_TLS_CERT_FILE \(\S+tls\.crt\)$/,
      ],
      [
        'a half-written certificate',
        () => folder.overwrite({ cert: first.cert.slice(0, 300) }),
        /^GUIDEPOST_TLS_CERT_FILE \(\S+tls\.crt\) holds no PEM certificate \(.+\)$/,
      ],
      [
        'an empty key',
        () => folder.overwrite({ key: '' }),
        /^GUIDEPOST_TLS_KEY_FILE \(\S+tls\.key\) holds no unencrypted PEM private key \(.+\)$/,
      ],
      [
        'a certificate file that is missing',
        () => rm(join(root, '..1', 'tls.crt')),
        /^GUIDEPOST_TLS_CERT_FILE \(\S+tls\.crt\) cannot be read \(ENOENT\)$/,
      ],
    ])('refuses %s, naming the setting and the file', async (_case, spoil, problem) => {
      await spoil();

      await expect(readCertificatePair(configOf(folder).tls!)).rejects.toThrow(problem);
      await expect(readCertificatePair(configOf(folder).tls!)).rejects.toBeInstanceOf(UnusableCertificate);
    });

    it('stops the start with one line saying what is wrong and how to fix it', async () => {
      await folder.overwrite({ key: second.key });

      const failure: unknown = await ServedCertificate.load(configOf(folder).tls!).catch((error: unknown) => error);

      expect(failure).toBeInstanceOf(StartupError);
      expect(startupFailureLine('Guidepost', failure)).toMatch(
        /^Guidepost cannot start: the key in GUIDEPOST_TLS_KEY_FILE \(\S+\) is not the key of the certificate in GUIDEPOST_TLS_CERT_FILE \(\S+\)\. Fix: point GUIDEPOST_TLS_CERT_FILE and GUIDEPOST_TLS_KEY_FILE at a PEM certificate and its unencrypted private key, both readable by this user\.$/,
      );
    });
  });

  describe('on a running server', () => {
    let app: NestFastifyApplication;
    let port: number;
    let warnings: string[];

    beforeEach(async () => {
      warnings = [];
      jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
      ({ app, port } = await serve(configOf(folder)));
    });

    afterEach(() => app.close());

    it('serves HTTPS, with the HTTP limits of the platform, and refuses plain HTTP', async () => {
      await expect(getOverHttps(port, first)).resolves.toEqual({ status: 200, body: '{"hello":"world"}' });
      await expect(getOverHttp(port)).rejects.toThrow();
      // Fastify's `https` options replace its `http` ones, where the platform sets how often Node
      // checks for late requests (every 30 s by Node's default, so a 1 s timeout would run long).
      const started = Date.now();
      await expect(statusOfUnfinishedRequest(port, first)).resolves.toBe('HTTP/1.1 408 Request Timeout');
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it('serves a renewed pair to new connections without a restart when the folder link is swapped', async () => {
      await folder.swapTo(second);

      await expect(eventually(() => servedFingerprint(port), second.fingerprint)).resolves.toBe(second.fingerprint);
      await expect(getOverHttps(port, second)).resolves.toMatchObject({ status: 200 });
    });

    it('keeps serving its pair while the files do not make one, logs why once each, and serves the next good pair', async () => {
      const refusal = async (spoil: () => Promise<void>): Promise<string | undefined> => {
        const before = warnings.length;
        await spoil();
        await eventually(() => Promise.resolve(warnings.length), before + 1);
        return warnings[before];
      };

      // A renewal that has written the certificate and not yet the key.
      expect(await refusal(() => folder.overwrite({ cert: second.cert }))).toMatch(
        /^the certificate files cannot be served as they are, so the server keeps serving CN=first \(SHA-256 \S+, valid until .+\): the key in GUIDEPOST_TLS_KEY_FILE .+ is not the key of the certificate/,
      );
      expect(await servedFingerprint(port)).toBe(first.fingerprint);
      // Read again, the same pair is not told again.
      await new Promise((done) => setTimeout(done, 1_200));
      expect(warnings).toHaveLength(1);
      // A copy that has only just begun (TLS itself would take an empty certificate, and serve no handshake).
      expect(await refusal(() => folder.overwrite({ cert: '', key: third.key }))).toMatch(
        /GUIDEPOST_TLS_CERT_FILE \(\S+\) holds no PEM certificate/,
      );
      expect(await servedFingerprint(port)).toBe(first.fingerprint);
      // And one cut short.
      expect(await refusal(() => folder.overwrite({ cert: third.cert.slice(0, 300) }))).toMatch(
        /GUIDEPOST_TLS_CERT_FILE \(\S+\) holds no PEM certificate \(.*\)$/,
      );
      expect(await servedFingerprint(port)).toBe(first.fingerprint);

      await folder.overwrite({ cert: third.cert });
      await expect(eventually(() => servedFingerprint(port), third.fingerprint)).resolves.toBe(third.fingerprint);
      await expect(getOverHttps(port, third)).resolves.toMatchObject({ status: 200 });
      expect(warnings).toHaveLength(3);
    }, 30_000);
  });
});
