import type { IncomingHttpHeaders } from 'node:http';
import { AUTHENTICATED_ACCOUNT_HEADER, INTERNAL_TOKEN_HEADER, PUBLIC_BASE_URL_HEADER } from '@guidepost/contracts-http';
import { REQUEST_ID_HEADER } from '@guidepost/platform-http';

/**
 * Headers about one connection only (RFC 9110 §7.6.1), never passed on in either direction. reply-from
 * drops `connection` and the headers it names; undici refuses `keep-alive`, `upgrade` and `expect`
 * outright. `expect` is this hop's business: Node has already answered the client's `100-continue`.
 */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect'];

/** What the gateway knows of a request it forwards. */
export interface ForwardedRequest {
  /** The request id the gateway's logs use (the client's `X-Request-Id` when acceptable). */
  readonly id: string;
  /** The address of the peer that connected to the gateway. */
  readonly peerAddress: string | undefined;
  /** As the client (or the ingress in front) sees it. */
  readonly protocol: string;
  readonly host: string;
  /** The base of the client's links, derived by the gateway (`requestBaseUrl`), which the service links on. */
  readonly publicBaseUrl: string;
  /** Whether a body is streamed on; a request without one must not announce a length. */
  readonly hasBody: boolean;
  /** Admin routes keep `Authorization`: the content service checks the admin token itself. */
  readonly keepsAuthorization: boolean;
  /** On the public API, the statement of the account whose key the gateway checked (`AccountStatements`). */
  readonly accountStatement: string | undefined;
}

/**
 * The headers a service receives: the client's, minus hop-by-hop ones and (on the public API, whose
 * credentials the gateway has checked) `Authorization`, plus the internal token, the authenticated
 * account, the public base URL of the client's links, the request id and the `X-Forwarded-*` trio.
 * Whatever the client sent in the gateway's own headers is replaced or dropped.
 */
export function headersToService(headers: IncomingHttpHeaders, request: ForwardedRequest, internalToken: string): IncomingHttpHeaders {
  const forwarded = withoutHopByHop(headers);
  if (!request.keepsAuthorization) delete forwarded.authorization;
  if (!request.hasBody) delete forwarded['content-length'];
  forwarded[INTERNAL_TOKEN_HEADER] = internalToken;
  if (request.accountStatement === undefined) delete forwarded[AUTHENTICATED_ACCOUNT_HEADER];
  else forwarded[AUTHENTICATED_ACCOUNT_HEADER] = request.accountStatement;
  forwarded[PUBLIC_BASE_URL_HEADER] = request.publicBaseUrl;
  forwarded[REQUEST_ID_HEADER] = request.id;
  forwarded['x-forwarded-for'] = [headers['x-forwarded-for'], request.peerAddress].filter((part) => part !== undefined).join(', ');
  forwarded['x-forwarded-proto'] = request.protocol;
  forwarded['x-forwarded-host'] = request.host;
  return forwarded;
}

/** The headers of a service's answer that reach the client. */
export function headersToClient(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return withoutHopByHop(headers);
}

function withoutHopByHop(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept = { ...headers };
  for (const name of HOP_BY_HOP) delete kept[name];
  return kept;
}
