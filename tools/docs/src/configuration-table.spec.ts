import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Type } from '@sinclair/typebox';
import { EnvironmentSchema } from '@guidepost/platform-config';
import { configurationTable, TABLE_END, TABLE_START, withConfigurationTable } from './configuration-table';

const REPO_ROOT = resolve(__dirname, '..', '..', '..');

describe("the README's configuration table", () => {
  it('is the one the configuration schema makes (run `npm run docs` and commit README.md)', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme).toBe(withConfigurationTable(readme, configurationTable()));
  });

  it('lists every variable of the schema once, with its default, and nothing else', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf(TABLE_START), readme.indexOf(TABLE_END));
    const listed = [...table.matchAll(/^\| `(GUIDEPOST_\w+)` \| ([^|]+) \|/gm)].map((match) => [match[1], match[2].trim()]);
    expect(listed.map(([name]) => name)).toEqual(Object.keys(EnvironmentSchema.properties));
    expect(Object.fromEntries(listed)).toMatchObject({
      GUIDEPOST_PORT: '`8080`',
      GUIDEPOST_BODY_LIMIT_BYTES: '`20971520` (20 MiB)',
      GUIDEPOST_DATABASE_URL: 'unset',
    });
  });

  it('reads defaults and bounds in their units, and says `unset` for a variable without a default', () => {
    const schema = Type.Object({
      GUIDEPOST_WINDOW_SECONDS: Type.Integer({ minimum: 3600, maximum: 365 * 86400, default: 7 * 86400, description: 'A window' }),
      GUIDEPOST_WAIT_MS: Type.Integer({ minimum: 1000, default: 200, description: 'A wait' }),
      GUIDEPOST_PART_BYTES: Type.Integer({ minimum: 5 * 1024 ** 2, default: 16 * 1024 ** 2 + 1, description: 'A part | size' }),
      GUIDEPOST_LEVEL: Type.Union([Type.Literal('info'), Type.Literal('debug')], { default: 'info', description: 'A level' }),
      GUIDEPOST_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'An address; none when unset' })),
    });
    expect(configurationTable(schema).split('\n').slice(2)).toEqual([
      '| `GUIDEPOST_WINDOW_SECONDS` | `604800` (7 days) | 1 hour to 365 days | A window |',
      '| `GUIDEPOST_WAIT_MS` | `200` (200 ms) | at least 1 second | A wait |',
      '| `GUIDEPOST_PART_BYTES` | `16777217` (16777217 bytes) | at least 5 MiB | A part \\| size |',
      '| `GUIDEPOST_LEVEL` | `info` | `info`, `debug` | A level |',
      '| `GUIDEPOST_URL` | unset | a URL, `http(s)://...` | An address; none when unset |',
    ]);
  });

  it('refuses a variable without a description, so that none reaches the README unexplained', () => {
    expect(() => configurationTable(Type.Object({ GUIDEPOST_X: Type.Integer({ default: 1 }) }))).toThrow('GUIDEPOST_X has no description');
  });

  it('replaces only what lies between its markers', () => {
    const readme = `# Title\n\n${TABLE_START}\nold\n${TABLE_END}\n\nAfter.\n`;
    expect(withConfigurationTable(readme, 'new')).toBe(`# Title\n\n${TABLE_START}\nnew\n${TABLE_END}\n\nAfter.\n`);
    expect(() => withConfigurationTable('# No table\n', 'new')).toThrow('markers');
  });
});
