import { notFound } from '@guidepost/platform-errors';
import type { UnitOfWork } from '@guidepost/platform-database';
import type { PublishableRecordRepository, ScopedRecordRepository, ScopedRow } from '../data-access/scoped-record.repository';
import { applyPublication, type PublicationCommand, type PublicationState } from '../domain/publication';
import type { IdentifiedInput } from './record-batch';

/** Records read and locked per statement: bounds the `IN (...)` list and the parameters of each upsert. */
const WRITE_CHUNK_SIZE = 500;

/**
 * Applies a publish or unpublish command to one stored record. The record is locked while the state
 * table decides, so concurrent commands cannot both "change" it; a harmless repeat writes nothing.
 */
export async function changePublication<E extends ScopedRow & PublicationState, S extends Partial<E>>(
  unitOfWork: UnitOfWork,
  repository: PublishableRecordRepository<E, S>,
  target: { readonly scope: S; readonly id: string; readonly resourceName: string },
  command: PublicationCommand,
): Promise<void> {
  await unitOfWork.run(async ({ manager }) => {
    const current = await repository.findForUpdate(manager, target.scope, target.id);
    if (!current) throw notFound(target.resourceName, target.id);
    const outcome = applyPublication(current, command, new Date());
    if (outcome.changed) await repository.setPublication(manager, target.scope, target.id, outcome.record);
  });
}

/**
 * Writes validated admin inputs in one transaction: each input becomes a record through `recordOf`,
 * which sees the stored record of the same id (if any) so that it can keep what must be kept.
 */
export async function upsertRecords<E extends ScopedRow, S extends Partial<E>, I extends IdentifiedInput>(
  unitOfWork: UnitOfWork,
  repository: ScopedRecordRepository<E, S>,
  scope: S,
  inputs: readonly I[],
  recordOf: (input: I, existing: E | undefined, now: Date) => E,
): Promise<number> {
  const now = new Date();
  await unitOfWork.run(async ({ manager }) => {
    for (let start = 0; start < inputs.length; start += WRITE_CHUNK_SIZE) {
      const chunk = inputs.slice(start, start + WRITE_CHUNK_SIZE);
      const existing = await repository.findManyForUpdate(
        manager,
        scope,
        chunk.map((input) => input.id),
      );
      await repository.write(
        manager,
        chunk.map((input) => recordOf(input, existing.get(input.id), now)),
      );
    }
  });
  return inputs.length;
}
