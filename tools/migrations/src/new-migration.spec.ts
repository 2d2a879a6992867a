import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MIGRATION_REGISTRIES, writeNewMigration } from './new-migration';

const REPO_ROOT = resolve(__dirname, '..', '..', '..');
const PROFILE_REGISTRY = MIGRATION_REGISTRIES.profile;
const PROFILE_MIGRATIONS = 'libs/profile/src/data-access/migrations';

/** Copies of the profile service's registry and migrations in a temporary repository root. */
function temporaryRepository(): string {
  const root = mkdtempSync(join(tmpdir(), 'migration-new-'));
  cpSync(join(REPO_ROOT, PROFILE_MIGRATIONS), join(root, PROFILE_MIGRATIONS), { recursive: true });
  cpSync(join(REPO_ROOT, PROFILE_REGISTRY), join(root, PROFILE_REGISTRY));
  return root;
}

/** The 13-digit orders of the registry's migration list, in the order listed. */
function listedOrders(registry: string): number[] {
  const list = registry.slice(registry.indexOf('migrations: ['));
  return [...list.slice(0, list.indexOf(']')).matchAll(/(\d{13}),/g)].map((match) => Number(match[1]));
}

describe('npm run migration:new', () => {
  let root: string;
  beforeEach(() => (root = temporaryRepository()));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('writes a migration named by its timestamp and lists it last, after every existing one', () => {
    const now = Date.UTC(2030, 0, 1);
    const migration = writeNewMigration(root, 'profile', 'add-profile-notes', now);

    expect(migration).toEqual({
      path: `${PROFILE_MIGRATIONS}/${now}-add-profile-notes.ts`,
      className: `AddProfileNotes${now}`,
      timestamp: now,
    });
    const source = readFileSync(join(root, migration.path), 'utf8');
    expect(source).toContain(`export class AddProfileNotes${now} implements MigrationInterface`);
    expect(source).toContain(`name = 'AddProfileNotes${now}';`);
    const registry = readFileSync(join(root, PROFILE_REGISTRY), 'utf8');
    expect(registry).toContain(`import { AddProfileNotes${now} } from './migrations/${now}-add-profile-notes';`);
    const orders = listedOrders(registry);
    expect(orders.at(-1)).toBe(now);
    expect(orders).toEqual([...orders].sort((a, b) => a - b));
    expect(readdirSync(join(root, PROFILE_MIGRATIONS)).sort().at(-1)).toBe(`${now}-add-profile-notes.ts`);
  });

  it('orders a migration after the newest one even when that one is ahead of the clock, as hand-picked timestamps are', () => {
    const newest = Math.max(...listedOrders(readFileSync(join(root, PROFILE_REGISTRY), 'utf8')));
    const first = writeNewMigration(root, 'profile', 'first-change', newest - 60_000);
    const second = writeNewMigration(root, 'profile', 'second-change', newest - 60_000);

    expect(first.timestamp).toBe(newest + 1);
    expect(second.timestamp).toBe(newest + 2);
    expect(listedOrders(readFileSync(join(root, PROFILE_REGISTRY), 'utf8')).slice(-2)).toEqual([newest + 1, newest + 2]);
  });

  it('leaves the existing migrations and their recorded names untouched', () => {
    const before = readFileSync(join(root, PROFILE_REGISTRY), 'utf8');
    writeNewMigration(root, 'profile', 'add-profile-notes', Date.UTC(2030, 0, 1));
    const after = readFileSync(join(root, PROFILE_REGISTRY), 'utf8');
    const beforeLines = before.split('\n');
    expect(beforeLines.every((line) => after.includes(line))).toBe(true);
    expect(after.split('\n')).toHaveLength(beforeLines.length + 2);
  });

  it('refuses an unknown service or a name that is not kebab case, writing nothing', () => {
    expect(() => writeNewMigration(root, 'billing', 'add-x')).toThrow("unknown service 'billing'");
    expect(() => writeNewMigration(root, 'profile', 'AddX')).toThrow('kebab case');
    expect(readdirSync(join(root, PROFILE_MIGRATIONS))).toEqual(readdirSync(join(REPO_ROOT, PROFILE_MIGRATIONS)));
  });

  it('knows the registry of every service that has PostgreSQL migrations', () => {
    const registries = readdirSync(join(REPO_ROOT, 'libs'))
      .map((lib) => `libs/${lib}/src/data-access`)
      .flatMap((dir) =>
        safeList(join(REPO_ROOT, dir))
          .filter((file) => file.endsWith('-database.ts'))
          .map((file) => `${dir}/${file}`),
      );
    expect(Object.values(MIGRATION_REGISTRIES).sort()).toEqual(registries.sort());
  });
});

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
