export { AdminApiError, AdminClient } from './admin-client';
export {
  ACCOUNT_ID_PATTERN,
  AccountSchema,
  CONTENT_KINDS,
  CreateAccountRequestSchema,
  CreatedApiKeySchema,
  type Account,
  type ContentKind,
  type CreateAccountRequest,
  type CreatedApiKey,
  type UpsertResult,
} from './admin.schema';
