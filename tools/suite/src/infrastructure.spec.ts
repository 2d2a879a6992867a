import { withoutInfrastructure } from './infrastructure';

describe('withoutInfrastructure', () => {
  it("drops the servers' endpoints and credentials, so that a standalone server started with the rest runs on its embedded stores", () => {
    const env = {
      PATH: '/usr/bin',
      GUIDEPOST_LOG_LEVEL: 'warn',
      GUIDEPOST_KAFKA_BROKERS: '127.0.0.1:19092',
      GUIDEPOST_DATABASE_URL: 'postgres://guidepost@127.0.0.1:15432/guidepost',
      GUIDEPOST_CLICKHOUSE_URL: 'http://127.0.0.1:18123',
      GUIDEPOST_S3_ENDPOINT: 'http://127.0.0.1:19000',
      GUIDEPOST_S3_ACCESS_KEY: 'key',
      GUIDEPOST_S3_SECRET_KEY: 'secret',
    };
    expect(withoutInfrastructure(env)).toEqual({ PATH: '/usr/bin', GUIDEPOST_LOG_LEVEL: 'warn' });
  });
});
