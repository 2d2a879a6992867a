import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An API key of an account. Only the SHA-256 of its secret is kept; revoked keys stay for the record. */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'text' })
  key!: string;

  @Column({ name: 'account_id', type: 'text' })
  accountId!: string;

  @Column({ name: 'secret_sha256', type: 'bytea' })
  secretSha256!: Buffer;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
