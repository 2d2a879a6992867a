export { SegmentModule } from './segment.module';
export { SEGMENT_DATABASE } from './data-access/segment-database';
