import { resolve } from 'node:path';
// A relative path, not the alias: jest loads global set-up without its module mapping.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { buildDist } from '../../tools/suite/src/build-lock';

/**
 * The distributed specs start suites of their own from `dist/`: it is brought up to date with the
 * sources first (an incremental build, a few seconds when nothing changed), so they never test stale code.
 */
export default async function globalSetup(): Promise<void> {
  await buildDist(resolve(__dirname, '..', '..'));
}
