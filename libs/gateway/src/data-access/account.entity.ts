import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A tenant: every public path names one (`/v2/accounts/{account_id}/...`). */
@Entity({ name: 'accounts' })
export class AccountEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
