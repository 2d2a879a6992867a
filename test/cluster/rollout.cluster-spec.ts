import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { missingNumbers } from '../distributed/support';
import { createAccount } from '../e2e/support';
import { Tracker } from '../e2e/support-tracking';
import { release } from './require-release';

const run = promisify(execFile);

/** Two clients, a pause after each answer: well under the account's rate limit of 60 a second. */
const LOAD_CLIENTS = 2;
const LOAD_PAUSE_MS = 50;
/** Load before the upgrade and after the last old pod is gone, so that it spans the whole rollout. */
const SETTLE_MS = 5_000;
/** `helm upgrade --wait` returns once the new pods are Ready; the old ones still stop after that. */
const OLD_PODS_GONE_WITHIN_MS = 180_000;

interface PodList {
  items: { metadata: { name: string; labels?: Record<string, string> }; spec: { containers: { image: string }[] } }[];
}

async function releasePods(): Promise<PodList['items']> {
  const { stdout } = await run(release('GUIDEPOST_CLUSTER_KUBECTL'), [
    'get',
    'pods',
    '--namespace',
    release('GUIDEPOST_CLUSTER_NAMESPACE'),
    '--selector',
    `app.kubernetes.io/instance=${release('GUIDEPOST_CLUSTER_RELEASE')}`,
    '--output',
    'json',
  ]);
  return (JSON.parse(stdout) as PodList).items;
}

/** The tokens of the chart-made Secret in the cluster (base64, as stored). */
async function releaseTokens(): Promise<Record<string, string | undefined>> {
  const { stdout } = await run(release('GUIDEPOST_CLUSTER_KUBECTL'), [
    'get',
    'secret',
    `${release('GUIDEPOST_CLUSTER_RELEASE')}-secrets`,
    '--namespace',
    release('GUIDEPOST_CLUSTER_NAMESPACE'),
    '--output',
    'json',
  ]);
  const { data } = JSON.parse(stdout) as { data: Record<string, string> };
  return { GUIDEPOST_ADMIN_TOKEN: data['GUIDEPOST_ADMIN_TOKEN'], GUIDEPOST_INTERNAL_TOKEN: data['GUIDEPOST_INTERNAL_TOKEN'] };
}

async function helmUpgrade(tag: string): Promise<void> {
  await run(
    release('GUIDEPOST_CLUSTER_HELM'),
    [
      'upgrade',
      release('GUIDEPOST_CLUSTER_RELEASE'),
      release('GUIDEPOST_CLUSTER_CHART'),
      '--namespace',
      release('GUIDEPOST_CLUSTER_NAMESPACE'),
      '--reuse-values',
      '--set',
      `image.tag=${tag}`,
      '--wait',
      '--timeout',
      '10m',
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
}

/** Waits until none of the pods named in `old` exists any more (terminating ones included). */
async function oldPodsGone(old: ReadonlySet<string>): Promise<void> {
  const deadline = Date.now() + OLD_PODS_GONE_WITHIN_MS;
  for (;;) {
    const left = (await releasePods()).filter((pod) => old.has(pod.metadata.name)).map((pod) => pod.metadata.name);
    if (left.length === 0) return;
    if (Date.now() > deadline) throw new Error(`old pods still there ${OLD_PODS_GONE_WITHIN_MS} ms after the upgrade: ${left.join(', ')}`);
    await delay(1_000);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

describe('helm upgrade of the release to a new image tag', () => {
  it('replaces every pod while a tracking load gets only 200s, keeps the generated tokens, and every acknowledged event is then in history', async () => {
    const tag = release('GUIDEPOST_CLUSTER_UPGRADE_TAG');
    const before = new Set((await releasePods()).map((pod) => pod.metadata.name));
    // scripts/cluster/test.sh gives the admin token; the install generated the internal one.
    const tokens = await releaseTokens();
    expect(Buffer.from(tokens.GUIDEPOST_INTERNAL_TOKEN ?? '', 'base64').toString()).toMatch(/^[A-Za-z0-9]{48}$/);
    const account = await createAccount();
    const tracker = new Tracker(account);
    const load = tracker.run(LOAD_CLIENTS, LOAD_PAUSE_MS);
    try {
      await delay(SETTLE_MS);
      await helmUpgrade(tag);
      await oldPodsGone(before);
      await delay(SETTLE_MS);
    } finally {
      tracker.stop();
      await load;
    }

    // The upgrade's render found the Secret (lookup) and kept both tokens: the old pods and the new
    // ones, side by side during the rollout, present the same internal token to each other.
    expect(await releaseTokens()).toEqual(tokens);
    const after = await releasePods();
    expect(after.length).toBeGreaterThan(0);
    expect(
      after.flatMap((pod) => pod.spec.containers.map((container) => container.image)).filter((image) => !image.endsWith(`:${tag}`)),
    ).toEqual([]);
    expect(tracker.outcomes.filter((outcome) => outcome.status !== 200)).toEqual([]);
    expect(tracker.acknowledged.length).toBeGreaterThan(100);
    const eventStore = { clickhouseUrl: release('GUIDEPOST_CLUSTER_CLICKHOUSE_URL') };
    expect(await missingNumbers(eventStore, account.id, tracker.acknowledged)).toEqual([]);
  }, 900_000);
});
