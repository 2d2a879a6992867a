/** The answer to a content upsert. */
export interface UpsertResult {
  readonly upserted: number;
}
