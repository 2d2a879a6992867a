import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { AUTHENTICATED_ACCOUNT_HEADER } from '@guidepost/contracts-http';

/**
 * The gateway's statement of the account whose API key it checked, as it travels to a service in
 * `AUTHENTICATED_ACCOUNT_HEADER`: the account id, then an HMAC-SHA256 of it keyed with the internal
 * token. Only a holder of the token can state an account, so a client's own copy of the header (should
 * the gateway ever pass one on) states nothing, and a service can compare the account in the path it
 * serves with the one the key was checked against.
 */
export class AccountStatements {
  private readonly key: Buffer;

  constructor(internalToken: string) {
    this.key = Buffer.from(internalToken, 'utf8');
  }

  /** The header value stating `accountId`. Account ids may hold any character: the id is percent-encoded, the proof is base64url. */
  state(accountId: string): string {
    return `${encodeURIComponent(accountId)}.${this.proofOf(accountId).toString('base64url')}`;
  }

  /** The account the headers state with a valid proof, or undefined (no statement, two, or a forged one). */
  statedAccount(headers: IncomingHttpHeaders): string | undefined {
    const statement = headers[AUTHENTICATED_ACCOUNT_HEADER];
    if (typeof statement !== 'string') return undefined;
    const dot = statement.lastIndexOf('.');
    const accountId = safelyDecoded(statement.slice(0, dot));
    if (dot < 0 || accountId === undefined) return undefined;
    const presented = Buffer.from(statement.slice(dot + 1), 'base64url');
    const expected = this.proofOf(accountId);
    return presented.length === expected.length && timingSafeEqual(presented, expected) ? accountId : undefined;
  }

  private proofOf(accountId: string): Buffer {
    return createHmac('sha256', this.key).update(accountId, 'utf8').digest();
  }
}

function safelyDecoded(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}
