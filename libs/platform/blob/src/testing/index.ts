export { type MemoryBlob, MemoryBlobStore } from './memory-blob-store';
