import { asyncAcknowledgement, type AsyncAcknowledgement, type CreatedJob } from '@guidepost/contracts-http';
import type { AppConfig } from '@guidepost/platform-config';

/** The 202 of an asynchronous operation, pointing at the job that reports its outcome. */
export function acknowledgeJob(config: AppConfig, accountId: string, job: CreatedJob): AsyncAcknowledgement {
  return asyncAcknowledgement(job.id, `${config.publicUrl}/v2/accounts/${encodeURIComponent(accountId)}/jobs/${encodeURIComponent(job.id)}`);
}
