// Pure core of write checksumming: a write is a contiguous run of byte ranges
// (kept old bytes before it, zeros of a gap, the new data, kept old bytes
// after it) starting on a block boundary. Each range arrives as (crc, length)
// and never crosses a block boundary; the builder joins them into one crc per
// block with crc32cCombine, so no byte is checksummed twice.

import { crc32cCombine } from '../../common/bulk/crc-combine.js';
import { crc32c } from '../../common/checksum.js';

export class BlockCrcBuilder {
  private readonly crcs: number[] = [];
  private blockCrc = 0;
  private blockFill = 0;
  private dataCrc = 0;
  private dataBytes = 0;

  /** @param firstBlock index of the block the first range starts in (at its start) */
  constructor(
    readonly blockBytes: number,
    readonly firstBlock: number,
  ) {
    if (!Number.isInteger(blockBytes) || blockBytes <= 0) throw new Error(`bad block size ${blockBytes}`);
  }

  /** Adds a range of known crc; `isData` ranges also form the crc the sender declared. */
  add(crc: number, length: number, isData: boolean): void {
    if (length === 0) return;
    if (this.blockFill + length > this.blockBytes) throw new Error('range crosses a block boundary');
    this.blockCrc = this.blockFill === 0 ? crc >>> 0 : crc32cCombine(this.blockCrc, crc, length);
    this.blockFill += length;
    if (isData) {
      this.dataCrc = this.dataBytes === 0 ? crc >>> 0 : crc32cCombine(this.dataCrc, crc, length);
      this.dataBytes += length;
    }
    if (this.blockFill === this.blockBytes) this.closeBlock();
  }

  /** Bytes until the current block is full: the longest range add() accepts now. */
  get room(): number {
    return this.blockBytes - this.blockFill;
  }

  /** Adds n zero bytes (a gap), split at block boundaries. */
  addZeros(n: number): void {
    while (n > 0) {
      const take = Math.min(n, this.room);
      this.add(zeroCrc(take, this.blockBytes), take, false);
      n -= take;
    }
  }

  /** Adds bytes, splitting at block boundaries; returns their crc32c. */
  addBytes(data: Buffer, isData: boolean): number {
    let crcAll = 0;
    let at = 0;
    while (at < data.length) {
      const take = Math.min(data.length - at, this.room);
      const crc = crc32c(data.subarray(at, at + take));
      crcAll = at === 0 ? crc : crc32cCombine(crcAll, crc, take);
      this.add(crc, take, isData);
      at += take;
    }
    return crcAll;
  }

  private closeBlock(): void {
    this.crcs.push(this.blockCrc);
    this.blockCrc = 0;
    this.blockFill = 0;
  }

  /** The crc of every data byte added, as the sender should have declared it. */
  get dataCrc32c(): number {
    return this.dataCrc;
  }

  /** Block crcs from firstBlock on; a short last block counts as a block. */
  finish(): Uint32Array {
    if (this.blockFill > 0) this.closeBlock();
    return Uint32Array.from(this.crcs);
  }
}

const zeroCrcCache = new Map<number, number>();

/** crc32c of n zero bytes (n at most one block; full blocks are cached). */
export function zeroCrc(n: number, blockBytes: number): number {
  const cached = zeroCrcCache.get(n);
  if (cached !== undefined) return cached;
  const crc = crc32c(Buffer.alloc(n));
  if (n === blockBytes) zeroCrcCache.set(n, crc);
  return crc;
}
