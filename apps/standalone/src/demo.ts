import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AdminApiError, AdminClient, type CreatedApiKey } from '@guidepost/contracts-http';
import { hasTerminal } from './terminal';

const DEMO_ACCOUNT_ID = 'demo';
/** Names the demo's current key (never its secret), so that the next demo start revokes it. */
const DEMO_KEY_FILE = 'demo-key.json';

/** What a demo start says: on stdout, which a log may keep, no secret; the key's secret on the terminal only. */
export interface DemoAnnouncement {
  readonly lines: readonly string[];
  readonly terminalLines: readonly string[];
}

/**
 * Seeds the demo account (`GUIDEPOST_DEMO=true`) through the admin API, the same path the CLI takes,
 * and gives it one key for this start. A key's secret can be shown only when the key is made, so each
 * start that can show it (it has a terminal) revokes the previous start's key and makes a new one:
 * the account never holds more than one demo key. A start without a terminal shows no secret, and
 * leaves the keys as they are.
 */
export async function startDemo(baseUrl: string, adminToken: string, dataDir: string, send: typeof fetch): Promise<DemoAnnouncement> {
  const admin = new AdminClient(baseUrl, adminToken, send);
  await seedDemoContent(admin);
  if (!hasTerminal()) {
    return {
      lines: [
        `Demo account '${DEMO_ACCOUNT_ID}': no terminal to show a new key's secret on, so its keys are left as they are (a secret never goes to this output, which a log may keep)`,
        `  start Guidepost from a terminal for a new demo key, or make one: npm run --silent guidepost -- keys create --account ${DEMO_ACCOUNT_ID}`,
      ],
      terminalLines: [],
    };
  }
  const key = await replaceDemoKey(admin, dataDir);
  return {
    // When stdout is the terminal, the terminal lines say it all; else stdout names the key alone.
    lines: process.stdout.isTTY ? [] : [`Demo account '${DEMO_ACCOUNT_ID}': key ${key.key} (its secret is shown on the terminal only)`],
    terminalLines: [
      `Demo account '${DEMO_ACCOUNT_ID}': key ${key.key} secret ${key.secret}`,
      `  curl -u ${key.key}:${key.secret} ${baseUrl}/v2/accounts/${DEMO_ACCOUNT_ID}/flows`,
    ],
  };
}

/** The demo account and its content; every call leaves the same (content upserts are idempotent). */
async function seedDemoContent(admin: AdminClient): Promise<void> {
  try {
    await admin.createAccount({ id: DEMO_ACCOUNT_ID, name: 'Demo' });
  } catch (error) {
    if (!(error instanceof AdminApiError && error.status === 409)) throw error;
  }
  await admin.upsertContent(DEMO_ACCOUNT_ID, 'tags', [
    { id: 'onboarding', name: 'Onboarding' },
    { id: 'release', name: 'Release notes' },
  ]);
  await admin.upsertContent(DEMO_ACCOUNT_ID, 'flows', [
    { id: 'welcome-tour', name: 'Welcome tour', frequency: 'once', tag_ids: ['onboarding'] },
    { id: 'whats-new', name: "What's new", frequency: 'every_time', tag_ids: ['release'] },
  ]);
  await admin.upsertContent(DEMO_ACCOUNT_ID, 'pins', [{ id: 'help-pin', name: 'Need help?', app_id: 'web-app' }]);
  await admin.upsertContent(DEMO_ACCOUNT_ID, 'mobile', [{ id: 'ios-welcome', name: 'iOS welcome', app_id: 'ios-app' }]);
}

/**
 * Revokes the key the previous demo start made (one already revoked, or of an account made again, is
 * gone: 404), then makes this start's and names it in the data folder.
 */
async function replaceDemoKey(admin: AdminClient, dataDir: string): Promise<CreatedApiKey> {
  const file = join(dataDir, DEMO_KEY_FILE);
  const previous = await previousDemoKey(file);
  if (previous !== undefined) {
    await admin.revokeApiKey(DEMO_ACCOUNT_ID, previous).catch((error: unknown) => {
      if (!(error instanceof AdminApiError && error.status === 404)) throw error;
    });
  }
  const created = await admin.createApiKey(DEMO_ACCOUNT_ID);
  await writeFile(file, JSON.stringify({ key: created.key }), { mode: 0o600 });
  return created;
}

async function previousDemoKey(file: string): Promise<string | undefined> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  const key = text === undefined ? undefined : (JSON.parse(text) as { key?: unknown }).key;
  return typeof key === 'string' ? key : undefined;
}
