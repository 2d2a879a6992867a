import { Controller, Delete, Get, Param, Patch, Post } from '@nestjs/common';
import {
  type Segment,
  type SegmentCreate,
  SegmentCreateSchema,
  type SegmentUpdate,
  SegmentUpdateSchema,
  statusAcknowledgement,
  type StatusAcknowledgement,
} from '@guidepost/contracts-http';
import { IdentifierParam, PublicBaseUrl, ValidBody } from '@guidepost/platform-http';
import { SegmentsService } from '../application/segments.service';
import { presentSegment } from './segment.presenter';

@Controller('v2/accounts/:account_id/segments')
export class SegmentsController {
  constructor(private readonly segments: SegmentsService) {}

  @Get()
  async list(@Param('account_id') accountId: string, @PublicBaseUrl() baseUrl: string): Promise<Segment[]> {
    const segments = await this.segments.list(accountId);
    return segments.map((segment) => presentSegment(baseUrl, segment));
  }

  @Get(':segment_id')
  async get(
    @Param('account_id') accountId: string,
    @Param('segment_id', IdentifierParam) segmentId: string,
    @PublicBaseUrl() baseUrl: string,
  ): Promise<Segment> {
    return presentSegment(baseUrl, await this.segments.get(accountId, segmentId));
  }

  /** 201 with the created segment. */
  @Post()
  async create(
    @Param('account_id') accountId: string,
    @ValidBody(SegmentCreateSchema) fields: SegmentCreate,
    @PublicBaseUrl() baseUrl: string,
  ): Promise<Segment> {
    return presentSegment(baseUrl, await this.segments.create(accountId, fields));
  }

  @Patch(':segment_id')
  async update(
    @Param('account_id') accountId: string,
    @Param('segment_id', IdentifierParam) segmentId: string,
    @ValidBody(SegmentUpdateSchema) changes: SegmentUpdate,
    @PublicBaseUrl() baseUrl: string,
  ): Promise<Segment> {
    return presentSegment(baseUrl, await this.segments.update(accountId, segmentId, changes));
  }

  @Delete(':segment_id')
  async delete(
    @Param('account_id') accountId: string,
    @Param('segment_id', IdentifierParam) segmentId: string,
  ): Promise<StatusAcknowledgement> {
    await this.segments.delete(accountId, segmentId);
    return statusAcknowledgement();
  }
}
