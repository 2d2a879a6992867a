import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { ExperienceKind } from '../domain/content-records';
import { CONTENT_SCHEMA } from './content-schema';
import { ExperienceEntity } from './experience.entity';
import { FlowEntity } from './flow.entity';
import { PublishableRecordRepository, ScopedRecordRepository } from './scoped-record.repository';
import { StudioDocumentEntity } from './studio-document.entity';
import { TagEntity } from './tag.entity';

export interface AccountScope {
  accountId: string;
}

export interface ExperienceScope extends AccountScope {
  kind: ExperienceKind;
}

export interface StudioDocumentScope extends AccountScope {
  /** The kind's collection. */
  kind: string;
}

@Injectable()
export class FlowRepository extends PublishableRecordRepository<FlowEntity, AccountScope> {
  constructor(@InjectRepository(FlowEntity, CONTENT_SCHEMA) reader: Repository<FlowEntity>) {
    super(reader, ['accountId', 'id']);
  }
}

@Injectable()
export class ExperienceRepository extends PublishableRecordRepository<ExperienceEntity, ExperienceScope> {
  constructor(@InjectRepository(ExperienceEntity, CONTENT_SCHEMA) reader: Repository<ExperienceEntity>) {
    super(reader, ['accountId', 'kind', 'id']);
  }
}

@Injectable()
export class StudioDocumentRepository extends PublishableRecordRepository<StudioDocumentEntity, StudioDocumentScope> {
  constructor(@InjectRepository(StudioDocumentEntity, CONTENT_SCHEMA) reader: Repository<StudioDocumentEntity>) {
    super(reader, ['accountId', 'kind', 'id']);
  }
}

@Injectable()
export class TagRepository extends ScopedRecordRepository<TagEntity, AccountScope> {
  constructor(@InjectRepository(TagEntity, CONTENT_SCHEMA) reader: Repository<TagEntity>) {
    super(reader, ['accountId', 'id']);
  }
}
