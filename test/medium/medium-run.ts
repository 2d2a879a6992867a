import type { RunningPostgres } from '@guidepost/platform-database';

/** What the global set-up started, for the teardown (both run in Jest's parent process). */
export const mediumRun: { postgres?: RunningPostgres; dataDir?: string } = ((globalThis as { guidepostMedium?: object }).guidepostMedium ??=
  {});
