import { rm } from 'node:fs/promises';
import { mediumRun } from './medium-run';

/** Stops the run's embedded PostgreSQL and deletes its folder. */
export default async function globalTeardown(): Promise<void> {
  await mediumRun.postgres?.stop();
  if (mediumRun.dataDir) await rm(mediumRun.dataDir, { recursive: true, force: true });
}
