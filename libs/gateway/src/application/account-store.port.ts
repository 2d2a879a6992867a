/** A tenant as the gateway keeps it. */
export interface StoredAccount {
  readonly id: string;
  readonly name: string;
  readonly createdAt: Date;
}

/** Keeps the accounts; the data-access layer implements it over `gateway.accounts`. */
export abstract class AccountStore {
  /** Inserts the account unless its id is taken; the created account, or undefined when the id exists. */
  abstract insertIfAbsent(id: string, name: string): Promise<StoredAccount | undefined>;
  abstract list(): Promise<StoredAccount[]>;
  abstract exists(id: string): Promise<boolean>;
}
