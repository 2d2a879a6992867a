import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createIdempotencyKeyTable, dropIdempotencyKeyTable } from '../../idempotency/idempotency-tables';

/** The claims and stored answers of requests sent with an `Idempotency-Key` (see `createIdempotencyKeyTable`). */
export class CreateGatewayIdempotencyKeys1795600000000 implements MigrationInterface {
  readonly name = 'CreateGatewayIdempotencyKeys1795600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createIdempotencyKeyTable(queryRunner, 'gateway');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropIdempotencyKeyTable(queryRunner, 'gateway');
  }
}
