import { Injectable } from '@nestjs/common';
import type { ExperienceKindDefinition } from '@guidepost/contracts-http';
import { typedExperienceKindAt } from '../domain/content-records';
import { ExperienceCatalog } from './experience-catalog.service';
import type { PublishableCatalog } from './publishable-catalog';
import { StudioDocumentCatalog } from './studio-document-catalog.service';

/** Every experience kind of `EXPERIENCE_KINDS`, served by the catalog of its record model. */
@Injectable()
export class ExperienceKinds {
  constructor(
    private readonly experiences: ExperienceCatalog,
    private readonly documents: StudioDocumentCatalog,
  ) {}

  /** What the public endpoints of the kind (`/{collection}`) read and publish. */
  catalogOf(kind: ExperienceKindDefinition): PublishableCatalog<object> {
    return kind.model === 'experience' ? this.experiences.of(typedExperienceKindAt(kind.collection)) : this.documents.of(kind);
  }

  /** Admin upsert of a JSON array of records of the kind (or one record); answers how many were written. */
  upsert(kind: ExperienceKindDefinition, accountId: string, body: unknown): Promise<number> {
    return kind.model === 'experience'
      ? this.experiences.upsert(typedExperienceKindAt(kind.collection), accountId, body)
      : this.documents.upsert(kind, accountId, body);
  }
}
