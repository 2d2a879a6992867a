import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A certificate for 127.0.0.1, its own issuer, and its private key, both PEM. */
export interface SelfSignedCertificate {
  readonly cert: string;
  readonly key: string;
  /** As a TLS client sees it (`getPeerCertificate().fingerprint256`). */
  readonly fingerprint: string;
}

/**
 * Issues one with the machine's openssl, as the README tells operators to (an EC key: fast to make),
 * for the tests of servers that serve HTTPS. `name` is its subject's common name.
 */
export function issueSelfSignedCertificate(name: string): SelfSignedCertificate {
  const folder = mkdtempSync(join(tmpdir(), 'guidepost-certificate-'));
  try {
    const certFile = join(folder, 'cert.pem');
    const keyFile = join(folder, 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${name}`,
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ],
      { stdio: 'ignore' },
    );
    const cert = readFileSync(certFile, 'utf8');
    return { cert, key: readFileSync(keyFile, 'utf8'), fingerprint: new X509Certificate(cert).fingerprint256 };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
