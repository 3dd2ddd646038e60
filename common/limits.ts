// Every queue, loop and buffer in stripefs has a named limit, defined here.
// Units are the last word of each name.

const KiB = 1024;
const MiB = 1024 * KiB;

export const LIMITS = {
  /** Largest gRPC message either side accepts; bulk data is streamed in pieces below this. */
  grpcMessageBytesMax: 8 * MiB,
  /** A data piece of a streamed write or read. */
  streamPieceBytes: 1 * MiB,
  /** HTTP/2 flow-control window a client asks for on data channels (grpc-js default is 64 KiB). */
  grpcClientWindowBytes: 16 * MiB,
  /**
   * A gRPC client pings its server this often, and drops the connection when a ping is not
   * answered in grpcKeepaliveTimeoutMs: a connection cut without a reset (a network partition,
   * `docker network disconnect`) is found and redialled once the network heals, instead of every
   * call timing out on it until TCP gives up (about 15 minutes).
   */
  grpcKeepaliveMs: 30_000,
  /** Generous: a server starved of CPU for seconds (a loaded 2-core host) is not a dead link. */
  grpcKeepaliveTimeoutMs: 20_000,
  /** Longest path the MDS accepts, in bytes of UTF-8. */
  pathBytesMax: 4096,
  /** Longest single name in a path, in bytes of UTF-8 (as NAME_MAX). */
  nameBytesMax: 255,
  /** Longest symlink target, in bytes of UTF-8 (as PATH_MAX). */
  symlinkTargetBytesMax: 4096,
  /** Extended attributes: a name (with its namespace, as XATTR_NAME_MAX), a value (XATTR_SIZE_MAX), names per entry, and names plus values of one entry together. */
  xattrNameBytesMax: 255,
  xattrValueBytesMax: 64 * KiB,
  xattrCountMax: 128,
  xattrTotalBytesMax: 256 * KiB,
  /** Entries one readdir page returns at most. */
  readdirPageEntriesMax: 10_000,
  /** Paths one StatMany call accepts. */
  statManyPathsMax: 10_000,
  /** Items one CreateMany or UnlinkMany call accepts (a client batches at most this many). */
  namespaceBatchItemsMax: 1_000,
  /** Smallest and largest stripe unit. */
  stripeSizeBytesMin: 64 * KiB,
  stripeSizeBytesMax: 64 * MiB,
  /**
   * Recovery under a byte-rate setting: how far one RecoverPg's pacing may fall
   * behind (listing its PG, a slow slice) and still catch up, and the most
   * credit the MDS's cluster-wide pace hands one task for the gap before it.
   */
  recoveryPaceLagMsMax: 1_000,
  /**
   * Data on the MDS: the bytes of a file a layout may keep in the MDS database are a multiple of
   * the unit, up to the max (Lustre's default DoM limit). Batched replies carrying those bytes
   * (OpenMany, Readdir with data, CreateMany with data) stop adding them at the batch bound and
   * say which items were left out, so every message stays under grpcMessageBytesMax.
   */
  domBytesUnit: 4 * KiB,
  domBytesMax: 1 * MiB,
  domBatchBytesMax: 4 * MiB,
  /** Objects a raid0/replicated file may be striped over. */
  stripeCountMax: 256,
  /** Object ids: length and alphabet are checked in oss/. */
  objectIdLengthMax: 128,
  /** Largest object an OST stores. */
  objectBytesMax: 64 * 1024 * MiB,
  /** Checksum block: one crc32c per block of an object. */
  checksumBlockBytes: 64 * KiB,
  /** Retries a client makes for one request before it reports the failure. */
  clientRetriesMax: 5,
  /** Capped exponential backoff for client retries. */
  clientBackoffMsBase: 20,
  clientBackoffMsMax: 1_000,
  /** Map epochs the MDS keeps so reads can find data that has not moved yet. */
  mapHistoryEpochsMax: 50,
} as const;

export const UNITS = { KiB, MiB, GiB: 1024 * MiB, TiB: 1024 * 1024 * MiB } as const;
