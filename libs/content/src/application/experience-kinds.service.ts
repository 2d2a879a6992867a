import { Injectable } from '@nestjs/common';
import type { ExperienceKindDefinition } from '@guidepost/contracts-http';
import { typedExperienceKindAt } from '../domain/content-records';
import { ExperienceCatalog, type ExperienceUpserts, readExperienceUpserts } from './experience-catalog.service';
import type { PublishableCatalog } from './publishable-catalog';
import { readStudioDocumentUpserts, StudioDocumentCatalog, type StudioDocumentUpserts } from './studio-document-catalog.service';

/** The records of a kind's admin upsert body, read by the rules of the kind's record model. */
export type KindUpserts =
  | { readonly model: 'experience'; readonly records: ExperienceUpserts }
  | { readonly model: 'studio-document'; readonly records: StudioDocumentUpserts };

/** The `@ValidBody` reader of the kind's admin upsert body (a JSON array of records, or one record). */
export function kindUpsertsReader(kind: ExperienceKindDefinition): (body: unknown) => KindUpserts {
  return kind.model === 'experience'
    ? (body) => ({ model: 'experience', records: readExperienceUpserts(body) })
    : (body) => ({ model: 'studio-document', records: readStudioDocumentUpserts(body) });
}

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

  /** Admin upsert of the records of the kind (read by `kindUpsertsReader(kind)`); answers how many were written. */
  upsert(kind: ExperienceKindDefinition, accountId: string, upserts: KindUpserts): Promise<number> {
    return upserts.model === 'experience'
      ? this.experiences.upsert(typedExperienceKindAt(kind.collection), accountId, upserts.records)
      : this.documents.upsert(kind, accountId, upserts.records);
  }
}
