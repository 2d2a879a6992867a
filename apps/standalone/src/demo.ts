import { AdminApiError, AdminClient } from '@guidepost/contracts-http';

const DEMO_ACCOUNT_ID = 'demo';

export interface DemoCredentials {
  readonly accountId: string;
  readonly key: string;
  readonly secret: string;
}

/**
 * Seeds the demo account (`GUIDEPOST_DEMO=true`) through the admin API, the same path the CLI takes,
 * with `send` (`inProcessFetch`). Content upserts are idempotent; a new API key is issued at every
 * start because secrets are only ever shown once.
 */
export async function seedDemoAccount(baseUrl: string, adminToken: string, send: typeof fetch): Promise<DemoCredentials> {
  const admin = new AdminClient(baseUrl, adminToken, send);
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
  const key = await admin.createApiKey(DEMO_ACCOUNT_ID);
  return { accountId: DEMO_ACCOUNT_ID, key: key.key, secret: key.secret };
}
