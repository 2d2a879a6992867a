/**
 * What the public API offers for every publishable kind (flows, pins, mobile experiences). Records that
 * link to themselves (`url`) start their links with `baseUrl`, the request's (`@PublicBaseUrl()`).
 */
export interface PublishableCatalog<P> {
  /** All records of the account, ordered by name, then id. */
  list(accountId: string, baseUrl: string): Promise<P[]>;
  /** One record; `not_found` when the account has none with this id. */
  get(accountId: string, id: string, baseUrl: string): Promise<P>;
  publish(accountId: string, id: string): Promise<void>;
  unpublish(accountId: string, id: string): Promise<void>;
}
