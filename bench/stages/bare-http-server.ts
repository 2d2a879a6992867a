import { createServer } from 'node:http';
import { statusAcknowledgement } from '@guidepost/contracts-http';

/**
 * The baseline of the track figure, run as its own process (`fork`): a bare node:http server that
 * reads the same JSON body, parses it and answers the same acknowledgement as Guidepost's track
 * endpoint. No routing, authentication, validation, durability: the ceiling for one Node process.
 * Tells its parent the port it listens on (a free one) in an IPC message.
 */
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    let status = 200;
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      status = 400;
    }
    const body = JSON.stringify(status === 200 ? statusAcknowledgement() : { error: true, status });
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ port: typeof address === 'object' && address !== null ? address.port : 0 });
});
process.on('disconnect', () => server.close());
