// The Reed-Solomon codec is shared with the OSS (recovery and scrub rebuild
// chunks with it), so it lives in common/erasure.ts; the client keeps this
// name for its own imports.
export {
  encodeParity,
  encodeParityOf,
  rebuildChunk,
  reconstruct,
  reconstructAll,
} from '../common/erasure.js';
