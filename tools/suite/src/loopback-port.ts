import { createServer, type Server } from 'node:net';

/** A loopback port that was free a moment ago, for a server about to be started. */
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

/**
 * Ports below Linux's ephemeral range (32768 and up), and above the fixed ports of the test servers
 * (scripts/infra, up to 29093): a port the OS picks (`listen(0)`) comes from the ephemeral range,
 * where any outgoing connection of a process beside the suite may take it between this probe and the
 * server's start, which then fails with "already in use".
 */
const FIRST_PORT = 30_000;
const PORTS = 2_700;

/** Binds the probe to a free port of the range, trying others while one is taken. */
async function boundPort(probe: Server): Promise<number> {
  for (;;) {
    const port = FIRST_PORT + Math.floor(Math.random() * PORTS);
    try {
      await listen(probe, port);
      return port;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
}

function listen(probe: Server, port: number): Promise<void> {
  return new Promise((done, fail) => {
    probe.once('error', fail);
    probe.listen(port, '127.0.0.1', () => {
      probe.off('error', fail);
      done();
    });
  });
}
