/**
 * One step of a service's ClickHouse schema: plain SQL statements, run in order. ClickHouse has no
 * transactional DDL and replicas may start together, so write each statement to be safe to run twice
 * (`CREATE TABLE IF NOT EXISTS`, `ADD COLUMN IF NOT EXISTS`).
 */
export interface ClickHouseMigration {
  /** Positive, increasing in the service's list; a new migration is appended, never inserted. */
  readonly version: number;
  readonly name: string;
  readonly statements: readonly string[];
}

/**
 * The migrations still to apply, in order. Refuses a list that is not in strictly increasing version
 * order, and a list with an unapplied migration older than an applied one (one was inserted, not
 * appended, and the store would miss it silently).
 */
export function pendingMigrations(
  service: string,
  migrations: readonly ClickHouseMigration[],
  appliedVersions: ReadonlySet<number>,
): ClickHouseMigration[] {
  migrations.forEach((migration, index) => {
    if (!Number.isInteger(migration.version) || migration.version < 1) {
      throw new Error(`${service} migration "${migration.name}": version must be a positive integer, not ${migration.version}`);
    }
    const previous = migrations[index - 1];
    if (previous && previous.version >= migration.version) {
      throw new Error(
        `${service} migrations are out of order: ${previous.version} "${previous.name}" comes before ${migration.version} "${migration.name}"`,
      );
    }
  });
  const newestApplied = Math.max(0, ...appliedVersions);
  const pending = migrations.filter((migration) => !appliedVersions.has(migration.version));
  const inserted = pending.find((migration) => migration.version < newestApplied);
  if (inserted) {
    throw new Error(
      `${service} migration ${inserted.version} "${inserted.name}" is older than the applied migration ${newestApplied}; append new migrations with a higher version`,
    );
  }
  return pending;
}
