import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { InjectOptions } from 'fastify';

/**
 * `fetch` of the process's own API, answered by the application in process (Fastify's `inject`: the
 * same routes, hooks and guards as a request from the network, without a socket). What the process
 * serves on may not be reachable by the process itself as a client: HTTPS with a certificate it has no
 * reason to trust, a public URL that names a proxy.
 */
export function inProcessFetch(app: NestFastifyApplication): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const { pathname, search } = new URL(request.url);
    const answer = await app.inject({
      method: request.method as InjectOptions['method'],
      url: `${pathname}${search}`,
      headers: Object.fromEntries(request.headers),
      payload: Buffer.from(await request.arrayBuffer()),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      for (const each of [value ?? []].flat()) headers.append(name, String(each));
    }
    // A Response with a body cannot say 204 or 304.
    return new Response(answer.rawPayload.length === 0 ? null : answer.rawPayload, { status: answer.statusCode, headers });
  };
}
