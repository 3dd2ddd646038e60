// Packed datasets (docs/dataset-format.md): pack samples into shards plus an index, read them back by index or key.
export { FORMAT_VERSION, INDEX_NAME, shardName } from './format.js';
export { DATASET_LIMITS } from './limits.js';
export { localSamples } from './local-source.js';
export {
  type DatasetReadOptions,
  type DatasetStats,
  type DatasetVerifyReport,
  type SampleInfo,
  StripeDataset,
} from './reader.js';
export { type PackOptions, type PackReport, type PackSample, packDataset } from './writer.js';
