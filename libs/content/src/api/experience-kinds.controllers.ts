import { Controller, Inject, Param, Put, type Type } from '@nestjs/common';
import { EXPERIENCE_KINDS, operationStemsOf, type ExperienceKindDefinition } from '@guidepost/contracts-http';
import { ValidBody } from '@guidepost/platform-http';
import { ExperienceKinds, type KindUpserts, kindUpsertsReader } from '../application/experience-kinds.service';
import type { UpsertResult } from './admin-body';
import { PublishableRecordsController } from './publishable-records.controller';

/**
 * The controllers of every experience kind, made from `EXPERIENCE_KINDS`: for each kind the four public
 * endpoints (`/{collection}`, `/{collection}/{id}`, `.../publish`, `.../unpublish`) and the admin upsert
 * (`PUT /admin/v1/accounts/{account_id}/{collection}`). A new kind in the table gets both with no code here.
 */
export const EXPERIENCE_KIND_CONTROLLERS: readonly Type[] = EXPERIENCE_KINDS.flatMap((kind) => [
  publicController(kind),
  adminController(kind),
]);

function publicController(kind: ExperienceKindDefinition): Type {
  @Controller(`v2/accounts/:account_id/${kind.collection}`)
  class KindController extends PublishableRecordsController<object> {
    constructor(@Inject(ExperienceKinds) kinds: ExperienceKinds) {
      super(kinds.catalogOf(kind));
    }
  }
  return named(KindController, `${operationStemsOf(kind)[1]}Controller`);
}

function adminController(kind: ExperienceKindDefinition): Type {
  @Controller(`admin/v1/accounts/:account_id/${kind.collection}`)
  class KindAdminController {
    constructor(@Inject(ExperienceKinds) private readonly kinds: ExperienceKinds) {}

    /** Creates or replaces the records of the body (a JSON array, or one record) by id. */
    @Put()
    async upsert(@Param('account_id') accountId: string, @ValidBody(kindUpsertsReader(kind)) upserts: KindUpserts): Promise<UpsertResult> {
      return { upserted: await this.kinds.upsert(kind, accountId, upserts) };
    }
  }
  return named(KindAdminController, `${operationStemsOf(kind)[1]}AdminController`);
}

/** Nest names controllers in its logs and errors by class name: one per kind reads better than `KindController` eight times. */
function named(controller: Type, name: string): Type {
  Object.defineProperty(controller, 'name', { value: name });
  return controller;
}
