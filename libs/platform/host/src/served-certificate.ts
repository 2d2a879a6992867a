import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createSecureContext, type Server as TlsServer } from 'node:tls';
import { Logger } from '@nestjs/common';
import { StartupError, type TlsSettings } from '@guidepost/platform-config';
import { PeriodicTask } from '@guidepost/platform-scheduling';

/** A certificate and its private key as read from their files, checked to belong together. */
export interface CertificatePair {
  /** The certificate file as read: PEM, the certificate first, its chain after it. */
  readonly cert: Buffer;
  readonly key: Buffer;
  /** Of the first certificate, as `openssl x509 -fingerprint -sha256` prints it. */
  readonly fingerprint: string;
  readonly subject: string;
  readonly validTo: string;
}

/** Why a pair of files cannot be served, in words an operator can act on. */
export class UnusableCertificate extends Error {
  override readonly name = 'UnusableCertificate';
}

/** `GUIDEPOST_TLS_CERT_FILE`, `GUIDEPOST_TLS_KEY_FILE`: how the settings are named in what the operator reads. */
const CERT_SETTING = 'GUIDEPOST_TLS_CERT_FILE';
const KEY_SETTING = 'GUIDEPOST_TLS_KEY_FILE';

/**
 * Reads both files and checks that they make a pair TLS can serve: a PEM certificate, an unencrypted
 * PEM private key, the key of that certificate. Throws `UnusableCertificate` naming what is wrong;
 * an empty or half-written file is refused like any other that does not parse.
 */
export async function readCertificatePair(settings: TlsSettings): Promise<CertificatePair> {
  const [cert, key] = await Promise.all([readSetting(CERT_SETTING, settings.certFile), readSetting(KEY_SETTING, settings.keyFile)]);
  const certificate = parsed(() => new X509Certificate(cert), `${CERT_SETTING} (${settings.certFile}) holds no PEM certificate`);
  const privateKey = parsed(() => createPrivateKey(key), `${KEY_SETTING} (${settings.keyFile}) holds no unencrypted PEM private key`);
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new UnusableCertificate(
      `the key in ${KEY_SETTING} (${settings.keyFile}) is not the key of the certificate in ${CERT_SETTING} (${settings.certFile})`,
    );
  }
  // What the TLS layer itself will take: PEM only (the checks above also take DER), a chain it can load.
  parsed(() => createSecureContext({ cert, key }), `${CERT_SETTING} and ${KEY_SETTING} cannot be served over TLS`);
  return {
    cert,
    key,
    fingerprint: certificate.fingerprint256,
    subject: certificate.subject.replace(/\n/g, ', '),
    validTo: certificate.validTo,
  };
}

async function readSetting(setting: string, path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new UnusableCertificate(`${setting} (${path}) cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

function parsed<T>(parse: () => T, problem: string): T {
  try {
    return parse();
  } catch (error) {
    throw new UnusableCertificate(`${problem} (${error instanceof Error ? error.message : String(error)})`);
  }
}

function described(pair: CertificatePair): string {
  return `${pair.subject} (SHA-256 ${pair.fingerprint}, valid until ${pair.validTo})`;
}

/**
 * The certificate a host serves HTTPS with, kept current. Renewals (certbot, cert-manager) replace the
 * files rather than write them in place, often by pointing a symlink at a new file or folder (a
 * Kubernetes Secret volume swaps its `..data` link), which a watch on the files' inodes misses and
 * which inotify does not see on every volume. So both files are read again every
 * `reloadIntervalMs` and compared by content: two small reads, blind to how the files were replaced.
 * A changed pair is served to new connections (`setSecureContext`; open connections keep theirs). A
 * pair that cannot be served, half written or only one of the two renewed so far, is not: the server
 * keeps the pair it has and logs why, once per problem, until the files make a pair again.
 */
export class ServedCertificate {
  private readonly logger = new Logger('Tls');
  private readonly renewal: PeriodicTask;
  private server: TlsServer | undefined;
  private lastProblem: string | undefined;

  private constructor(
    private readonly settings: TlsSettings,
    private served: CertificatePair,
  ) {
    this.renewal = new PeriodicTask({
      intervalMs: settings.reloadIntervalMs,
      run: () => this.renew(),
      onFailure: (error) =>
        this.logger.error(`the certificate could not be renewed: ${error instanceof Error ? error.message : String(error)}`),
    });
  }

  /** Reads the pair at start-up; a pair that cannot be served stops the start with one line saying why. */
  static async load(settings: TlsSettings): Promise<ServedCertificate> {
    try {
      return new ServedCertificate(settings, await readCertificatePair(settings));
    } catch (error) {
      if (!(error instanceof UnusableCertificate)) throw error;
      throw new StartupError(
        error.message,
        `point ${CERT_SETTING} and ${KEY_SETTING} at a PEM certificate and its unencrypted private key, both readable by this user`,
      );
    }
  }

  /** What `https.createServer` takes besides its HTTP options. */
  get pair(): Pick<CertificatePair, 'cert' | 'key'> {
    return { cert: this.served.cert, key: this.served.key };
  }

  /** Begins serving renewed pairs on `server`, which was created with `pair`. */
  renewOn(server: TlsServer): void {
    this.server = server;
    this.logger.log(`serving HTTPS with ${described(this.served)}`);
    this.renewal.start();
  }

  stop(): Promise<void> {
    return this.renewal.stop();
  }

  private async renew(): Promise<void> {
    let pair: CertificatePair;
    try {
      pair = await readCertificatePair(this.settings);
    } catch (error) {
      if (!(error instanceof UnusableCertificate)) throw error;
      this.refuse(error.message);
      return;
    }
    this.lastProblem = undefined;
    if (pair.cert.equals(this.served.cert) && pair.key.equals(this.served.key)) return;
    this.server?.setSecureContext({ cert: pair.cert, key: pair.key });
    this.served = pair;
    this.logger.log(`serving the renewed certificate ${described(pair)}`);
  }

  private refuse(problem: string): void {
    if (problem === this.lastProblem) return;
    this.lastProblem = problem;
    this.logger.warn(
      `the certificate files cannot be served as they are, so the server keeps serving ${described(this.served)}: ${problem}`,
    );
  }
}
