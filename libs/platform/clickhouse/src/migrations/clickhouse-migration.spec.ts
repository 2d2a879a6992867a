import { type ClickHouseMigration, pendingMigrations } from './clickhouse-migration';

const migration = (version: number, name = `m${version}`): ClickHouseMigration => ({ version, name, statements: [`SELECT ${version}`] });

describe('pendingMigrations', () => {
  it('returns every migration, in order, when none is applied', () => {
    expect(pendingMigrations('ingestion', [migration(1), migration(2), migration(5)], new Set()).map((m) => m.version)).toEqual([1, 2, 5]);
  });

  it('skips the applied ones and keeps the order of the rest', () => {
    expect(pendingMigrations('ingestion', [migration(1), migration(2), migration(3)], new Set([1])).map((m) => m.version)).toEqual([2, 3]);
  });

  it('returns nothing when every migration is applied', () => {
    expect(pendingMigrations('ingestion', [migration(1), migration(2)], new Set([1, 2]))).toEqual([]);
  });

  it('ignores applied versions the list does not know (a newer release ran first)', () => {
    expect(pendingMigrations('ingestion', [migration(1)], new Set([1, 2]))).toEqual([]);
  });

  it('refuses a list out of order or with a repeated version, naming both migrations', () => {
    expect(() => pendingMigrations('ingestion', [migration(2, 'second'), migration(1, 'first')], new Set())).toThrow(
      'ingestion migrations are out of order: 2 "second" comes before 1 "first"',
    );
    expect(() => pendingMigrations('ingestion', [migration(1), migration(1, 'again')], new Set())).toThrow(/out of order/);
  });

  it('refuses versions that are not positive integers', () => {
    expect(() => pendingMigrations('ingestion', [migration(0)], new Set())).toThrow('version must be a positive integer, not 0');
    expect(() => pendingMigrations('ingestion', [migration(1.5)], new Set())).toThrow(/positive integer/);
  });

  it('refuses a migration inserted below one already applied', () => {
    expect(() => pendingMigrations('ingestion', [migration(1), migration(2, 'late'), migration(3)], new Set([1, 3]))).toThrow(
      'ingestion migration 2 "late" is older than the applied migration 3',
    );
  });
});
