import type { IncomingHttpHeaders } from 'node:http';
import { INTERNAL_TOKEN_HEADER } from '@guidepost/contracts-http';
import { tokenDigest, tokenMatches } from './token-digest';

/** The one answer to a caller without the internal token, whichever check refused it. */
export const INTERNAL_CREDENTIAL_REQUIRED = `${INTERNAL_TOKEN_HEADER}: an internal credential is required; this service answers only the gateway and the other Guidepost services`;

/** The internal token (`GUIDEPOST_INTERNAL_TOKEN`) as the services check it: in constant time, from one header. */
export class InternalCredential {
  private readonly expected: Buffer | undefined;

  constructor(internalToken: string | undefined) {
    this.expected = internalToken === undefined ? undefined : tokenDigest(internalToken);
  }

  get configured(): boolean {
    return this.expected !== undefined;
  }

  /** True when the headers carry the token exactly once (a repeated header is refused, not guessed at). */
  isPresentedBy(headers: IncomingHttpHeaders): boolean {
    const presented = headers[INTERNAL_TOKEN_HEADER];
    return typeof presented === 'string' && tokenMatches(presented, this.expected);
  }
}
