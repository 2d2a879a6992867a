export {
  embeddedPostgresOf,
  eventStoreEngineOf,
  signalProcessTree,
  startServer,
  type RunningServer,
  type ServerExit,
  type StartServerOptions,
} from './server-process';
export {
  accountUrl,
  admin,
  ADMIN_TOKEN_VARIABLE,
  ADMIN_URL_VARIABLE,
  api,
  BASE_URL_VARIABLE,
  basicAuthorization,
  createAccount,
  createApiKey,
  expectJson,
  expectSelfUrl,
  server,
  upsert,
  type ApiInit,
  type ContentKind,
  type HttpMethod,
  type ServerAddress,
  type TestAccount,
} from './client';
export { eventually, waitForJob, type JobDetail, type JobEvent } from './polling';
export { expectProblem, type ProblemBody } from './problem';
export { parseCsv } from './csv';
