import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Kafka, logLevel, type Message, Partitioners } from 'kafkajs';
import { statusAcknowledgement } from '@guidepost/contracts-http';

/**
 * The reference front door of the distributed track figure, run as its own process (`fork`): the
 * least a durable intake does on this machine. node:http, `JSON.parse` of the body, the credential
 * compared in memory, and one kafkajs produce (idempotent, acks = all) per batch of the requests that
 * arrived while the previous produce was in flight, each request answered once its batch is
 * acknowledged: the group commit of Guidepost's intake without anything else. Each event is a record
 * of its own (the body as received, keyed by user), on a topic of the benchmark's namespace on the
 * distributed shape's broker. Tells its parent the port it listens on in an IPC message.
 */
export interface ReferenceIntakeSettings {
  readonly brokers: readonly string[];
  readonly topic: string;
  readonly partitions: number;
  /** The `Authorization` header a request must carry (Basic auth with the bench account's key). */
  readonly authorization: string;
}

interface Pending {
  readonly record: Message;
  readonly response: ServerResponse;
}

const TRACK_PATH = /^\/v2\/accounts\/[^/]+\/users\/([^/]+)\/events$/;
const ACKNOWLEDGEMENT = JSON.stringify(statusAcknowledgement());

const settings = JSON.parse(process.argv[2] ?? '{}') as ReferenceIntakeSettings;
const credential = Buffer.from(settings.authorization);
const kafka = new Kafka({ clientId: 'bench-reference-intake', brokers: [...settings.brokers], logLevel: logLevel.WARN });
// The partitioner the bus uses (murmur2 of the key, as the Java client), named so kafkajs does not warn.
const producer = kafka.producer({ idempotent: true, allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner });
let waiting: Pending[] = [];
let producing = false;

/** Produces what waits, one request at a time; what arrives meanwhile goes into the next one. */
async function produceWaiting(): Promise<void> {
  producing = true;
  while (waiting.length > 0) {
    const batch = waiting;
    waiting = [];
    try {
      await producer.send({ topic: settings.topic, acks: -1, messages: batch.map(({ record }) => record) });
      for (const { response } of batch) answer(response, 200, ACKNOWLEDGEMENT);
    } catch {
      for (const { response } of batch) answer(response, 503, '{"error":true,"status":503}');
    }
  }
  producing = false;
}

function handle(request: IncomingMessage, response: ServerResponse): void {
  const userId = TRACK_PATH.exec(request.url ?? '')?.[1];
  // Node discards the body of a request answered before it was read.
  if (request.method !== 'POST' || userId === undefined) return answer(response, 404, '{"status":404}');
  if (!hasCredential(request)) return answer(response, 401, '{"status":401}');
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks);
    try {
      JSON.parse(body.toString('utf8'));
    } catch {
      return answer(response, 400, '{"status":400}');
    }
    waiting.push({ record: { key: userId, value: body }, response });
    if (!producing) void produceWaiting();
  });
}

function hasCredential(request: IncomingMessage): boolean {
  const given = Buffer.from(request.headers.authorization ?? '');
  return given.length === credential.length && timingSafeEqual(given, credential);
}

function answer(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

async function start(): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: settings.topic, numPartitions: settings.partitions }], waitForLeaders: true });
  await admin.disconnect();
  await producer.connect();
  const server = createServer(handle);
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address !== null ? address.port : 0 });
  });
  process.on('disconnect', () => {
    server.close();
    void producer.disconnect();
  });
}

start().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
