import { ADMIN_TOKEN_VARIABLE, ADMIN_URL_VARIABLE, BASE_URL_VARIABLE } from '../e2e/support/client';

/** What scripts/cluster/test.sh tells the specs about the release, besides the e2e client's three. */
const RELEASE_VARIABLES = [
  'GUIDEPOST_CLUSTER_HELM',
  'GUIDEPOST_CLUSTER_KUBECTL',
  'GUIDEPOST_CLUSTER_RELEASE',
  'GUIDEPOST_CLUSTER_NAMESPACE',
  'GUIDEPOST_CLUSTER_CHART',
  'GUIDEPOST_CLUSTER_UPGRADE_TAG',
  'GUIDEPOST_CLUSTER_CLICKHOUSE_URL',
  'GUIDEPOST_CLUSTER_LOAD_BALANCER_URL',
] as const;

export type ReleaseVariable = (typeof RELEASE_VARIABLES)[number];

/** The value of one of the release's variables (checked present by the global set-up). */
export function release(name: ReleaseVariable): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run through scripts/cluster/test.sh (npm run test:cluster)`);
  return value;
}

/** The cluster specs need the release's gateway; without it they would test nothing (or a local server). */
export default function requireRelease(): void {
  const missing = [BASE_URL_VARIABLE, ADMIN_URL_VARIABLE, ADMIN_TOKEN_VARIABLE, ...RELEASE_VARIABLES].filter((name) => !process.env[name]);
  if (missing.length > 0) throw new Error(`run through scripts/cluster/test.sh (npm run test:cluster): ${missing.join(', ')} not set`);
}
