import { createServer, type Server } from 'node:net';

/** A loopback port that was free a moment ago (the OS picks it), for a server about to be started. */
export async function freeLoopbackPort(): Promise<number> {
  const [port] = await freeLoopbackPorts(1);
  return port;
}

/**
 * `count` distinct loopback ports that were free a moment ago. Every probe stays bound until all are
 * chosen: probed one after the other, the OS may hand out a port it just took back, and two servers
 * of one suite would then be given the same port.
 */
export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const probes: Server[] = [];
  try {
    const ports: number[] = [];
    for (let index = 0; index < count; index += 1) {
      const probe = createServer();
      probes.push(probe);
      ports.push(await boundPort(probe));
    }
    return ports;
  } finally {
    await Promise.all(probes.map((probe) => new Promise((closed) => probe.close(closed))));
  }
}

function boundPort(probe: Server): Promise<number> {
  return new Promise((done, fail) => {
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      done(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}
