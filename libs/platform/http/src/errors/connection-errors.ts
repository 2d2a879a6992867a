import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { API_VERSION_HEADER, PUBLIC_API_VERSION } from '@guidepost/contracts-http';
import { SAFE_ANSWER_HEADERS } from '../safe-answer-headers';
import { problem, type ProblemResponse } from './problem';
import { describeSize } from './size-limit';

/**
 * What Node's HTTP server reports in `clientError`: a parser error (`HPE_*`) or a timeout, with the
 * bytes at fault (a Buffer at run time, whatever Fastify's declarations say).
 */
export interface ConnectionError extends Error {
  readonly code?: string;
  readonly rawPacket?: unknown;
}

/** The limits a request is held to before it reaches any route, for the details that name them. */
export interface ConnectionLimits {
  readonly maxHeaderBytes: number;
  readonly requestTimeoutMs: number;
}

/**
 * What to answer a request that Node's HTTP parser refused or that did not arrive in time: these never
 * reach Fastify's router, so neither routes nor the exception filter see them. The detail says what is
 * wrong and never quotes the request (Fastify's own answer is not Problem Details either).
 */
export function connectionErrorProblem(error: ConnectionError, limits: ConnectionLimits): ProblemResponse {
  switch (error.code ?? '') {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return problem(408, `the request (headers and body) did not arrive within ${describeDuration(limits.requestTimeoutMs)}`);
    case 'HPE_HEADER_OVERFLOW':
      if (requestLineOverflows(error.rawPacket, limits.maxHeaderBytes)) {
        return problem(
          414,
          `the request line (method and URL) is longer than the ${describeSize(limits.maxHeaderBytes)} limit of the request head`,
        );
      }
      return problem(431, `the request line and headers exceed the ${describeSize(limits.maxHeaderBytes)} limit`);
    case 'HPE_INVALID_URL':
      return problem(400, 'path: is not a valid request target (characters other than printable ASCII must be percent-encoded as UTF-8)');
    case 'HPE_INVALID_METHOD':
      return problem(400, 'the request method is not a valid HTTP method');
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return problem(400, 'body: its chunked transfer encoding is broken');
    default:
      return problem(400, 'the request is not valid HTTP/1.1 (malformed request line or headers)');
  }
}

/**
 * Whether the request line alone is what overflowed the head: the packet starts a request and holds no
 * line break within the limit. Node reports both overflows alike; telling them apart gives the client
 * 414 (shorten the URL) rather than 431 (send fewer headers).
 */
function requestLineOverflows(packet: unknown, maxHeaderBytes: number): boolean {
  if (!Buffer.isBuffer(packet) || !/^[A-Z]+ /.test(packet.toString('latin1', 0, 16))) return false;
  const lineEnd = packet.indexOf('\r\n');
  return lineEnd === -1 || lineEnd > maxHeaderBytes;
}

function describeDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Node keeps the response in progress on a socket here; undocumented, but what its own handler checks. */
interface SocketWithResponse extends Socket {
  readonly _httpMessage?: ServerResponse | null;
}

/**
 * Fastify's `clientErrorHandler`: answers Problem Details straight on the socket (there is no request
 * or response object), then closes the connection, whose framing can no longer be trusted. Nothing is
 * written when the client is gone or a response has begun (a timeout while an answer streams).
 */
export function answerConnectionError(limits: ConnectionLimits): (error: ConnectionError, socket: Socket) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const response = (socket as SocketWithResponse)._httpMessage;
    if (!socket.writable || response?.headersSent === true) {
      socket.destroy();
      return;
    }
    const { status, body } = connectionErrorProblem(error, limits);
    const json = JSON.stringify(body);
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(json)}`,
      `${API_VERSION_HEADER}: ${PUBLIC_API_VERSION}`,
      ...Object.entries(SAFE_ANSWER_HEADERS).map(([name, value]) => `${name}: ${value}`),
      'Connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${json}`);
    // Whatever the client still sends is not read; the connection goes once the answer is out.
    socket.destroySoon();
  };
}
