import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An end user's profile: free-form properties, addressed by account and user id. */
@Entity({ name: 'user_profiles' })
export class UserProfileEntity {
  @PrimaryColumn({ name: 'account_id', type: 'text' })
  accountId!: string;

  @PrimaryColumn({ name: 'user_id', type: 'text' })
  userId!: string;

  @Column({ type: 'jsonb' })
  properties!: Record<string, unknown>;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
