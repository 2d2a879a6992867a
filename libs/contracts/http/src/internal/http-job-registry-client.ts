import { InternalApiCaller, type InternalApiOptions } from './internal-api-caller';
import { AbandonedJobSchema, CreatedJobSchema, internalAbandonJobPath, internalJobsPath } from './internal-api.schema';
import { type CreatedJob, JobRegistryClient } from './job-registry.port';

/**
 * `JobRegistryClient` of a service in its own process (distributed shape): creates jobs through the
 * ingestion service's internal API. Creation is not idempotent, so a call is repeated only when it
 * never reached the ingestion service; any other failure is an `InternalApiError`.
 */
export class HttpJobRegistryClient extends JobRegistryClient {
  private readonly ingestion: InternalApiCaller;

  /** Throws when the URL or the token is missing, naming the setting. */
  constructor(ingestionServiceUrl: string | undefined, internalToken: string | undefined, options?: InternalApiOptions) {
    super();
    this.ingestion = new InternalApiCaller('ingestion', ingestionServiceUrl, internalToken, options);
  }

  createJob(input: { readonly accountId: string; readonly name: string }): Promise<CreatedJob> {
    return this.ingestion.post({
      operation: `create a '${input.name}' job`,
      path: internalJobsPath(input.accountId),
      body: { name: input.name },
      expectedStatus: 201,
      answerSchema: CreatedJobSchema,
      retry: 'not-idempotent',
    });
  }

  async abandonJob(input: { readonly accountId: string; readonly jobId: string; readonly reason: string }): Promise<void> {
    await this.ingestion.post({
      operation: `abandon job ${input.jobId}`,
      path: internalAbandonJobPath(input.accountId, input.jobId),
      body: { reason: input.reason },
      expectedStatus: 200,
      answerSchema: AbandonedJobSchema,
      // Recorded under one message id per job: sending it again changes nothing.
      retry: 'idempotent',
    });
  }
}
