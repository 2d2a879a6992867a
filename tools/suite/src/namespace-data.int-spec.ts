import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { loadInfrastructure } from './infrastructure';
import {
  clickHouseStatement,
  discardNamespaceData,
  ensureClickHouseDatabase,
  ensurePostgresDatabase,
  namespaceData,
} from './namespace-data';

const infrastructure = loadInfrastructure();
const kafka = new Kafka({ brokers: infrastructure.kafkaBrokers.split(','), logLevel: logLevel.NOTHING });

async function postgresDatabases(): Promise<string[]> {
  const client = new Client({ connectionString: infrastructure.databaseUrl });
  await client.connect();
  try {
    return (await client.query<{ datname: string }>('SELECT datname FROM pg_database')).rows.map((row) => row.datname);
  } finally {
    await client.end();
  }
}

async function clickHouseDatabases(): Promise<string[]> {
  return (await clickHouseStatement(infrastructure.clickhouseUrl, 'SELECT name FROM system.databases FORMAT TabSeparated'))
    .split('\n')
    .filter(Boolean);
}

async function topics(): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await admin.listTopics();
  } finally {
    await admin.disconnect();
  }
}

describe('a throwaway namespace of the suite', () => {
  it('leaves no topic, consumer group or database behind once discarded, and spares other namespaces', async () => {
    const [mine, other] = [namespaceData(`n${randomBytes(4).toString('hex')}`), namespaceData(`n${randomBytes(4).toString('hex')}`)];
    for (const data of [mine, other]) {
      await ensurePostgresDatabase(infrastructure.databaseUrl, data.database);
      await ensureClickHouseDatabase(infrastructure.clickhouseUrl, data.database);
    }
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [mine, other].map((data) => ({ topic: `${data.kafkaNamespace}.events`, numPartitions: 2 })),
      waitForLeaders: true,
    });
    await admin.disconnect();
    const consumer = kafka.consumer({ groupId: `${mine.kafkaNamespace}.readers` });
    await consumer.connect();
    await consumer.subscribe({ topics: [`${mine.kafkaNamespace}.events`], fromBeginning: true });
    await consumer.run({ eachMessage: () => Promise.resolve() });
    await consumer.disconnect();

    await discardNamespaceData(infrastructure, mine);

    expect(await topics()).not.toContain(`${mine.kafkaNamespace}.events`);
    expect(await postgresDatabases()).not.toContain(mine.database);
    expect(await clickHouseDatabases()).not.toContain(mine.database);
    const groupsAdmin = kafka.admin();
    await groupsAdmin.connect();
    const groups = (await groupsAdmin.listGroups()).groups.map((group) => group.groupId);
    await groupsAdmin.disconnect();
    expect(groups).not.toContain(`${mine.kafkaNamespace}.readers`);
    expect(await topics()).toContain(`${other.kafkaNamespace}.events`);
    expect(await postgresDatabases()).toContain(other.database);
    expect(await clickHouseDatabases()).toContain(other.database);

    await discardNamespaceData(infrastructure, other);
  });
});
