export { SegmentModule } from './segment.module';
