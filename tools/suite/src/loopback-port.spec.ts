import { createServer } from 'node:net';
import { freeLoopbackPorts } from './loopback-port';

describe('freeLoopbackPorts', () => {
  it('gives distinct ports, each of which a server can then listen on', async () => {
    const ports = await freeLoopbackPorts(40);
    expect(new Set(ports).size).toBe(40);
    const servers = ports.map(() => createServer());
    try {
      await Promise.all(
        servers.map(
          (server, index) =>
            new Promise<void>((listening, fail) => server.once('error', fail).listen(ports[index], '127.0.0.1', listening)),
        ),
      );
    } finally {
      await Promise.all(servers.map((server) => new Promise((closed) => server.close(closed))));
    }
  });
});
