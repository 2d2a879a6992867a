import { isIP } from 'node:net';
import { PUBLIC_BASE_URL_HEADER } from '@guidepost/contracts-http';

/** What a request says of the address its client sent it to, as far as each part is believed. */
export interface LinkOrigin {
  /** The `Host` header as sent. */
  readonly host: string | undefined;
  /** Whether this connection is TLS, served by this process. */
  readonly encrypted: boolean;
  /** `X-Forwarded-Host` and `X-Forwarded-Proto`; undefined when the peer is no trusted proxy (`TrustedProxies`). */
  readonly forwarded: { readonly host: HeaderValue; readonly proto: HeaderValue } | undefined;
  /** `PUBLIC_BASE_URL_HEADER`; undefined unless the caller presented the internal token (it is then the gateway). */
  readonly stated: HeaderValue;
}

type HeaderValue = string | string[] | undefined;

export type PublicBaseUrlReading = { readonly baseUrl: string; readonly problem?: never } | { readonly problem: string };

/**
 * The base URL of the links a request's answer holds (no trailing slash): `GUIDEPOST_PUBLIC_URL` when
 * configured, as given; else the base the gateway stated for its client; else scheme and host of the
 * request itself, from a trusted proxy's `X-Forwarded-Proto` and `X-Forwarded-Host` (the last entry,
 * the one the nearest proxy wrote) or from the connection and `Host`.
 *
 * A host that is not a plausible `host[:port]` is a problem naming its header, answered 400, rather than
 * a reason to fall back to the address the server listens on: that address is no more reachable for
 * this client than a garbled one (the very case links are derived for), and a fallback would hide a
 * broken client or proxy behind links that look right. Refusing also keeps anything that is not a host
 * (`/`, `@`, `?`, spaces) out of the links the answer, a job's events and an export's mail hold, and
 * HTTP itself asks a server to answer 400 to an invalid `Host` (RFC 9112, section 3.2).
 */
export function publicBaseUrlOf(origin: LinkOrigin, configured: string | undefined): PublicBaseUrlReading {
  if (configured !== undefined) return { baseUrl: configured };
  if (origin.stated !== undefined) return statedBaseUrl(origin.stated);
  const forwardedHost = lastEntry(origin.forwarded?.host);
  const host = forwardedHost ?? origin.host;
  const hostHeader = forwardedHost === undefined ? 'Host' : 'X-Forwarded-Host';
  if (host === undefined) return { problem: `${hostHeader}: is required, to form the links of the answer` };
  if (!isPlausibleHost(host)) return { problem: `${hostHeader}: ${NOT_A_HOST}` };
  const forwardedProto = lastEntry(origin.forwarded?.proto)?.toLowerCase();
  if (forwardedProto !== undefined && forwardedProto !== 'http' && forwardedProto !== 'https')
    return { problem: 'X-Forwarded-Proto: must be http or https' };
  const scheme = forwardedProto ?? (origin.encrypted ? 'https' : 'http');
  return { baseUrl: `${scheme}://${host.toLowerCase()}` };
}

const NOT_A_HOST = 'is not a host name or IP address with an optional port (host[:port], an IPv6 address in brackets)';

const STATED_BASE_URL = /^https?:\/\/(.+)$/;

/** The gateway's statement, held to the same rule as a host it derived itself. */
function statedBaseUrl(stated: string | string[]): PublicBaseUrlReading {
  const baseUrl = typeof stated === 'string' ? stated : undefined;
  const host = baseUrl === undefined ? undefined : STATED_BASE_URL.exec(baseUrl)?.[1];
  if (baseUrl === undefined || host === undefined || !isPlausibleHost(host))
    return { problem: `${PUBLIC_BASE_URL_HEADER}: must be http(s)://host[:port]` };
  return { baseUrl };
}

/** The entry the nearest proxy wrote: the last, whether it repeated the header or appended to it. */
function lastEntry(value: HeaderValue): string | undefined {
  const last = [value ?? []].flat().at(-1)?.split(',').at(-1)?.trim();
  return last === '' ? undefined : last;
}

/** A DNS name (underscores allowed, as container and service names have them), IPv4, or IPv6 in brackets, then a port. */
const HOST_AND_PORT =
  /^(?:(?<name>[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*)|\[(?<ipv6>[0-9A-Fa-f:.]+)\])(?::(?<port>[0-9]{1,5}))?$/;
const MAX_NAME_CHARS = 253;
const NUMERIC_NAME = /^[0-9.]+$/;

function isPlausibleHost(host: string): boolean {
  const groups = HOST_AND_PORT.exec(host)?.groups;
  if (groups === undefined) return false;
  const { name, ipv6, port } = groups;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65_535)) return false;
  if (ipv6 !== undefined) return isIP(ipv6) === 6;
  // A name of digits alone would be read as an IPv4 address by every client, so it must be one.
  return name.length <= MAX_NAME_CHARS && (!NUMERIC_NAME.test(name) || isIP(name) === 4);
}
