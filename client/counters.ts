// What stats() reports, collected as the client works.
import { OpLatencies } from './stats.js';

export class ClientCounters {
  bytesRead = 0;
  bytesWritten = 0;
  retries = 0;
  degradedReads = 0;
  badChunksReported = 0;
  /** Bulk reads that failed their checksum here and were read again with the OSS's own check. */
  checksumRechecks = 0;
  /** Requests in flight to an OST given up when the map marked it down (they fail over at once). */
  ostDownAborts = 0;
  /** Operations that ran out of retries against an OST the map still showed up and waited for a newer map. */
  mapWaits = 0;
  /** Bytes of large reads fetched straight into the caller's buffer, past the cache (directReadBytesMin). */
  directReadBytes = 0;
  /** Reads of part of a block fetched exactly, without the block (no readahead window). */
  exactReads = 0;
  /** Bytes read from and written to files' parts on the MDS (data on the MDS). */
  domBytesRead = 0;
  domBytesWritten = 0;
  /** Files created, written and committed in one MDS round trip (their content carried by the create). */
  createsWithData = 0;
  /** Object requests sent per transport (bulk data path, gRPC fallback). */
  readonly requests = { bulk: 0, grpc: 0 };
  readonly bytesReadPerOst = new Map<number, number>();
  readonly bytesWrittenPerOst = new Map<number, number>();
  readonly latencies: OpLatencies;
  readonly startedMs = performance.now();

  constructor(bucketsPerDecade: number) {
    this.latencies = new OpLatencies(bucketsPerDecade);
  }

  addOstBytes(map: Map<number, number>, ost: number, bytes: number): void {
    map.set(ost, (map.get(ost) ?? 0) + bytes);
  }
}
