// Named limits of packed datasets (docs/dataset-format.md): what a pack writes at once, how
// getMany merges and bounds its reads, and what an index may hold before it is refused.
import { UNITS } from '../../common/limits.js';

const { KiB, MiB, GiB } = UNITS;

export const DATASET_LIMITS = {
  /** A shard is closed once it holds this many bytes (a sample never spans two shards). */
  shardBytesDefault: 256 * MiB,
  /** Shards a pack writes at once. */
  shardsWritingMax: 4,
  /** Source files a pack reads ahead of its shard writers, per shard. */
  readsAheadPerShardMax: 8,
  /** Two samples of one shard closer than this are fetched in one range (the gap is read and dropped). */
  coalesceGapBytesMax: 64 * KiB,
  /** A merged range stops growing at this size (a single larger sample is still one range). */
  rangeBytesMax: 4 * MiB,
  /** Ranges of one getMany in flight at once (each is one read of one shard). */
  rangesInFlightMax: 16,
  /** Samples one getMany may ask for. */
  samplesPerCallMax: 1_000_000,
  /** verify reads shards in ranges of up to this many bytes. */
  verifyRangeBytesMax: 16 * MiB,
  /** Bad samples a verify report lists (it counts them all). */
  badSamplesListedMax: 1_000,
  /** A sample's bytes, a key's UTF-8 bytes, and the counts an index may declare. */
  sampleBytesMax: 1 * GiB,
  keyBytesMax: 4 * KiB,
  samplesMax: 1_000_000_000,
  shardsMax: 1_000_000,
  /** The index is read whole into memory: larger ones are refused before reading. */
  indexBytesMax: 2 * GiB,
} as const;
