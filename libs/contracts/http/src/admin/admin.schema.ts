import { Type, type Static } from '@sinclair/typebox';

/**
 * Shapes of the admin API (`/admin/v1`), the token-protected surface that stands in for the web studio
 * that owns accounts, keys and content. The gateway validates with these schemas and the admin client
 * is typed by them, so both sides read one definition.
 */

/** Account ids appear in every public path, so they are restricted to URL-safe characters. */
export const ACCOUNT_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

export const CreateAccountRequestSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Display name of the account' }),
    id: Type.Optional(
      Type.String({ pattern: ACCOUNT_ID_PATTERN, description: 'Chosen account id; 24 hex characters are generated when omitted' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateAccountRequest = Static<typeof CreateAccountRequestSchema>;

export const AccountSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});
export type Account = Static<typeof AccountSchema>;

/** The answer to creating an API key: the only time the secret is ever shown. */
export const CreatedApiKeySchema = Type.Object({
  account_id: Type.String(),
  key: Type.String({ description: 'Public key id: the user name of HTTP Basic authentication' }),
  secret: Type.String({ description: 'The password of HTTP Basic authentication; never retrievable again' }),
  created_at: Type.String({ format: 'date-time' }),
});
export type CreatedApiKey = Static<typeof CreatedApiKeySchema>;

/** Content kinds the admin API upserts with `PUT /admin/v1/accounts/{account_id}/{kind}` (a JSON array body). */
export const CONTENT_KINDS = ['flows', 'pins', 'mobile', 'tags'] as const;
export type ContentKind = (typeof CONTENT_KINDS)[number];

/** The answer to a content upsert. */
export interface UpsertResult {
  readonly upserted: number;
}
