import type { IncomingMessage } from 'node:http';
import type { FastifyReply } from 'fastify';

/** Up to this size an unread body is read and discarded; beyond it the connection is closed instead. */
const MAX_DRAINED_BYTES = 64 * 1024 * 1024;

/**
 * Settles the body of a request answered before its end arrived: refused before it was read (413,
 * 415, 401...), or answered early by a service behind the gateway. Closing the connection at once
 * makes many clients fail with EPIPE while still uploading, so they never see the answer. A body of
 * known, moderate size is drained so the client reads the answer and the connection stays usable; a
 * huge or unbounded one is cut off, since the rest would otherwise arrive where the next request is
 * expected. Call it before the answer's headers are sent; it does nothing to a body already complete.
 */
export function settleUnreadBody(request: IncomingMessage, reply: FastifyReply): void {
  if (!bodyStillArriving(request)) return;
  const declaredBytes = Number(request.headers['content-length'] ?? Number.NaN);
  if (Number.isFinite(declaredBytes) && declaredBytes <= MAX_DRAINED_BYTES) {
    reply.removeHeader('connection');
    // A body piped on (the gateway forwards it) stops going there: when its destination closes,
    // Node would pause it again (unpipe) and the client would be left writing into a full window.
    request.unpipe();
    request.resume();
  } else {
    reply.header('connection', 'close');
  }
}

function bodyStillArriving(request: IncomingMessage): boolean {
  const hasBody = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
  return hasBody && !request.complete;
}
