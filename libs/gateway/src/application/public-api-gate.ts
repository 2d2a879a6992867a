import { DomainError } from '@guidepost/platform-errors';
import { parseBasicAuthorization, type BasicAuthorization } from '../domain/basic-credentials';
import type { RateLimitDecision } from '../domain/fixed-window-rate-limiter';
import { publicApiTarget, type RequestLocation } from '../domain/public-api-target';
import { isWellFormedApiKey } from '../domain/credentials';
import type { ApiKeyAuthenticator } from './api-key-authenticator';
import type { ActiveApiKey } from './api-key-lookup.port';
import type { Attempt, AuthenticationThrottle } from './authentication-throttle';
import type { RateLimiter } from './rate-limiter.port';

export interface GateRequest extends RequestLocation {
  readonly authorization: string | undefined;
  /** Where failed attempts are counted (`clientAddressOf`). */
  readonly clientAddress: string;
}

export type SetHeader = (name: string, value: string) => void;

const AUTHENTICATE_CHALLENGE = 'Basic realm="guidepost"';

/**
 * What the gateway checks before any public route runs: repeated failed authentication from the
 * client's address or with the key (429, before the credentials are checked: `AuthenticationThrottle`),
 * credentials (401), the account's request budget (429) and that the key belongs to the account in the
 * path (403). Throttling is counted
 * against the key's own account before the account check, so a key probing other accounts is
 * throttled too, and every authenticated answer carries the RateLimit and X-RateLimit headers.
 */
export class PublicApiGate {
  constructor(
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly rateLimiter: RateLimiter,
    private readonly throttle: AuthenticationThrottle,
  ) {}

  /**
   * Resolves when the request may proceed, with the account whose key was checked (undefined outside
   * the public API); otherwise throws the `DomainError` to answer with.
   */
  async admit(request: GateRequest, setHeader: SetHeader): Promise<string | undefined> {
    const target = publicApiTarget(request);
    if (!target.guarded) return undefined;

    const apiKey = await this.authenticate(request, setHeader);
    const budget = await this.rateLimiter.take(apiKey.accountId);
    announceBudget(budget, setHeader);
    if (!budget.allowed) {
      throw new DomainError(
        'throttled',
        `Rate limit of ${budget.limit} requests per second exceeded for this account; retry after ${budget.resetSeconds} s`,
        { retryAfterSeconds: budget.resetSeconds },
      );
    }
    if (target.accountId !== undefined && target.accountId !== apiKey.accountId) {
      throw new DomainError('forbidden', `The API key does not grant access to account '${target.accountId}'`);
    }
    return apiKey.accountId;
  }

  private async authenticate(request: GateRequest, setHeader: SetHeader): Promise<ActiveApiKey> {
    const parsed = parseBasicAuthorization(request.authorization);
    const attempt = attemptOf(parsed, request.clientAddress);
    const throttled = this.throttle.refusal(attempt);
    if (throttled !== undefined) throw throttled;
    if (parsed.kind === 'credentials') {
      const apiKey = await this.authenticator.authenticate(parsed.key, parsed.secret);
      if (apiKey !== undefined) {
        this.throttle.succeeded(attempt);
        return apiKey;
      }
      // Only presented credentials are attempts: a missing or malformed header guesses nothing.
      this.throttle.failed(attempt);
    }
    // RFC 9110: a 401 names the scheme the client should use.
    setHeader('WWW-Authenticate', AUTHENTICATE_CHALLENGE);
    throw new DomainError('unauthenticated', unauthenticatedDetail(parsed));
  }
}

/** The key's id is the throttle's subject when the gateway could have issued it: other ids count against their address only. */
function attemptOf(parsed: BasicAuthorization, address: string): Attempt {
  const subject = parsed.kind === 'credentials' && isWellFormedApiKey(parsed.key) ? parsed.key : undefined;
  return { credential: 'api_key', address, subject };
}

function unauthenticatedDetail(parsed: BasicAuthorization): string {
  switch (parsed.kind) {
    case 'missing':
      return 'Authorization header is missing: use HTTP Basic authentication with the API key as user name and the API secret as password';
    case 'malformed':
      return `Authorization header is malformed: ${parsed.reason}`;
    case 'credentials':
      // One answer for unknown, revoked and wrong secret, so a caller cannot probe which keys exist.
      return 'The API key or secret is invalid, or the key was revoked';
  }
}

/**
 * The IETF draft's `RateLimit-*` names, and the `X-RateLimit-*` names the official clients read: the
 * same limit and remaining budget, but `X-RateLimit-Reset` is the instant of the reset in epoch
 * seconds, as the real API's is, where the draft's `RateLimit-Reset` is the seconds until it.
 */
function announceBudget(budget: RateLimitDecision, setHeader: SetHeader): void {
  for (const [field, value] of Object.entries({ Limit: budget.limit, Remaining: budget.remaining })) {
    setHeader(`RateLimit-${field}`, String(value));
    setHeader(`X-RateLimit-${field}`, String(value));
  }
  setHeader('RateLimit-Reset', String(budget.resetSeconds));
  setHeader('X-RateLimit-Reset', String(budget.resetAt));
}
