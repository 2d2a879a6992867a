import { Logger } from '@nestjs/common';
import { DomainError } from '@guidepost/platform-errors';
import { ExpiringCache } from '../domain/expiring-cache';
import { FailureTally, type FailureTallyOptions } from '../domain/failure-tally';

/** The credentials whose failures are throttled: an account's API key, the admin token. */
export type CredentialKind = 'api_key' | 'admin_token';

/** What became of an attempt the throttle saw: `refused` (401, a wrong credential) or `throttled` (429). */
export type AttemptOutcome = 'refused' | 'throttled';

/** Told of each refused and each throttled attempt (`guidepost_auth_failures_total`). */
export type AttemptListener = (credential: CredentialKind, outcome: AttemptOutcome) => void;

/** One attempt at authentication: where from, and with which credential. */
export interface Attempt {
  readonly credential: CredentialKind;
  /** The client address (`clientAddressOf`). */
  readonly address: string;
  /**
   * Which credential of its kind was tried: an API key's id (a well-formed one: anything else cannot be
   * right and is counted against its address only), the admin token's fixed name; undefined when none.
   */
  readonly subject: string | undefined;
}

/**
 * Failures per address and per credential: 10 within a minute throttle it for 5 minutes. Secrets are
 * random 256-bit values, so guessing one is hopeless anyway; what this bounds is the noise and the
 * cost of an attacker (each made-up key is a PostgreSQL lookup) and the guessing of an admin token an
 * operator chose.
 */
export const FAILED_AUTHENTICATION: FailureTallyOptions = { failures: 10, windowMs: 60_000, coolDownMs: 300_000, maxSubjects: 50_000 };

/**
 * How long an address that authenticated with a credential stays exempt from that credential's
 * throttle, and how many such pairs are remembered (only successes add one: an attacker cannot).
 */
export const KNOWN_ADDRESSES = { ttlMs: 24 * 3_600_000, maxEntries: 50_000 } as const;

/**
 * Throttles repeated failed authentication, before the credentials are checked: an address with too
 * many failures is refused whatever it presents, and so is a credential with too many failures (from
 * any addresses) unless it comes from an address it succeeded from within the last day. Known addresses
 * are what keeps an attacker who knows a key's id from locking its owner out cheaply: the owner's
 * addresses keep getting through, while the attacker's, and any address new to the key, wait for the
 * cool-down (OWASP's "device cookie" defence, with the address for the cookie). Successes cost no
 * query and are never counted as failures.
 *
 * State is in this process's memory, so each gateway replica counts alone: with n replicas behind a
 * balancer, an attacker gets up to n times the failures before every replica throttles it.
 */
export class AuthenticationThrottle {
  private readonly logger = new Logger('AuthenticationThrottle');
  private readonly addresses: FailureTally;
  private readonly credentials: FailureTally;
  private readonly knownAddresses: ExpiringCache<string, true>;

  constructor(
    private readonly onAttempt: AttemptListener = () => undefined,
    private readonly options: FailureTallyOptions = FAILED_AUTHENTICATION,
    now: () => number = Date.now,
  ) {
    this.addresses = new FailureTally(options, now);
    this.credentials = new FailureTally(options, now);
    this.knownAddresses = new ExpiringCache(KNOWN_ADDRESSES, now);
  }

  /** The 429 to answer the attempt with, before its credentials are checked; undefined to check them. */
  refusal(attempt: Attempt): DomainError | undefined {
    const fromAddress = this.addresses.throttledFor(attempt.address);
    const withCredential = this.exemptFromCredential(attempt) ? 0 : this.credentials.throttledFor(credentialOf(attempt));
    if (fromAddress === 0 && withCredential === 0) return undefined;
    this.onAttempt(attempt.credential, 'throttled');
    const retryAfterSeconds = Math.ceil(Math.max(fromAddress, withCredential) / 1000);
    const source = fromAddress > 0 ? 'from this client address' : `with this ${CREDENTIAL_NAMES[attempt.credential]}`;
    return new DomainError('throttled', `Too many failed authentication attempts ${source}; retry after ${retryAfterSeconds} s`, {
      retryAfterSeconds,
    });
  }

  /** Counts a failed attempt against its address and its credential. */
  failed(attempt: Attempt): void {
    this.onAttempt(attempt.credential, 'refused');
    if (this.addresses.fail(attempt.address)) this.warn(`from ${attempt.address}`, attempt);
    if (attempt.subject !== undefined && this.credentials.fail(credentialOf(attempt)))
      this.warn(`with ${describe(attempt)}, the last from ${attempt.address}`, attempt);
  }

  /** Remembers the address as one the credential is used from. */
  succeeded(attempt: Attempt): void {
    if (attempt.subject !== undefined) this.knownAddresses.set(knownAddressOf(attempt), true);
  }

  private exemptFromCredential(attempt: Attempt): boolean {
    return attempt.subject === undefined || this.knownAddresses.get(knownAddressOf(attempt)) === true;
  }

  /** Once per throttling: the operator learns who is failing (the runbook of GuidepostAuthenticationFailures). */
  private warn(source: string, attempt: Attempt): void {
    const { failures, windowMs, coolDownMs } = this.options;
    this.logger.warn(
      `throttled for ${coolDownMs / 1000} s: ${failures} failed ${CREDENTIAL_NAMES[attempt.credential]} attempts within ${windowMs / 1000} s ${source}`,
    );
  }
}

function credentialOf(attempt: Attempt): string {
  return `${attempt.credential}:${attempt.subject ?? ''}`;
}

function knownAddressOf(attempt: Attempt): string {
  return `${credentialOf(attempt)}@${attempt.address}`;
}

function describe(attempt: Attempt): string {
  return attempt.credential === 'api_key' ? `API key ${attempt.subject ?? ''}` : 'the admin token';
}

const CREDENTIAL_NAMES: Readonly<Record<CredentialKind, string>> = { api_key: 'API key', admin_token: 'admin token' };
