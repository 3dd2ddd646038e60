// Contents every chaos write produces, so that any byte read back names the
// write that put it there. A file is cut into cells of CELL_BYTES; each cell a
// write covers starts with a header (magic, file number, write id, the cell's
// index in the file) and is filled with bytes seeded by that header. A read
// decodes each cell: a header that checks and a fill that matches name the
// write; a cell of zeros was never written; anything else is corrupt or torn.
// Pure: no IO, no clock.

export const CELL_BYTES = 512;
const HEADER_BYTES = 16;
const MAGIC = 0x5346_4348;
/** What a cell decodes to besides a write id (>= 1). */
export const CELL_ZEROS = 0;
export const CELL_BAD = -1;

function fillSeed(fileNo: number, writeId: number, cellIndex: number): number {
  let h = Math.imul(fileNo ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ writeId ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  h = Math.imul(h ^ cellIndex ^ (h >>> 16), 0x27d4eb2f) >>> 0;
  return h || 1;
}

/** Writes one cell's bytes (header, then xorshift32 fill) into `out` at `at`. */
function writeCell(out: Buffer, at: number, fileNo: number, writeId: number, cellIndex: number): void {
  out.writeUInt32LE(MAGIC, at);
  out.writeUInt32LE(fileNo, at + 4);
  out.writeUInt32LE(writeId, at + 8);
  out.writeUInt32LE(cellIndex, at + 12);
  let x = fillSeed(fileNo, writeId, cellIndex);
  for (let i = at + HEADER_BYTES; i < at + CELL_BYTES; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out.writeUInt32LE(x >>> 0, i);
  }
}

/** The bytes write `writeId` puts at [offsetBytes, offsetBytes + lengthBytes) of file `fileNo` (cell-aligned). */
export function writeContents(
  fileNo: number,
  writeId: number,
  offsetBytes: number,
  lengthBytes: number,
): Buffer {
  if (offsetBytes % CELL_BYTES !== 0 || lengthBytes % CELL_BYTES !== 0)
    throw new Error(`chaos writes are cell-aligned (${CELL_BYTES}): ${offsetBytes}+${lengthBytes}`);
  if (writeId < 1) throw new Error(`write ids start at 1, got ${writeId}`);
  const out = Buffer.allocUnsafe(lengthBytes);
  for (let at = 0; at < lengthBytes; at += CELL_BYTES)
    writeCell(out, at, fileNo, writeId, (offsetBytes + at) / CELL_BYTES);
  return out;
}

const scratch = Buffer.alloc(CELL_BYTES);

/** The write id of one cell read at `cellIndex` of file `fileNo`: >= 1, CELL_ZEROS or CELL_BAD. */
export function decodeCell(cell: Buffer, fileNo: number, cellIndex: number): number {
  if (cell.length !== CELL_BYTES) return cell.every((b) => b === 0) ? CELL_ZEROS : CELL_BAD;
  if (cell.readUInt32LE(0) !== MAGIC) return cell.every((b) => b === 0) ? CELL_ZEROS : CELL_BAD;
  const writeId = cell.readUInt32LE(8);
  if (cell.readUInt32LE(4) !== fileNo || cell.readUInt32LE(12) !== cellIndex || writeId < 1) return CELL_BAD;
  writeCell(scratch, 0, fileNo, writeId, cellIndex);
  return scratch.equals(cell) ? writeId : CELL_BAD;
}

/** One stripe unit as read: the write every cell names, or CELL_BAD with what the cells say. */
export interface UnitRead {
  value: number;
  detail?: string;
}

/** Decodes a stripe unit read at `offsetBytes` of file `fileNo`: one write id for the whole unit, or why not. */
export function decodeUnit(bytes: Buffer, fileNo: number, offsetBytes: number): UnitRead {
  const seen = new Map<number, number>();
  for (let at = 0; at < bytes.length; at += CELL_BYTES) {
    const cell = bytes.subarray(at, Math.min(bytes.length, at + CELL_BYTES));
    const value = decodeCell(cell, fileNo, (offsetBytes + at) / CELL_BYTES);
    seen.set(value, (seen.get(value) ?? 0) + 1);
  }
  if (seen.size === 1) {
    const value = [...seen.keys()][0] as number;
    return value === CELL_BAD ? { value, detail: 'every cell corrupt' } : { value };
  }
  const parts = [...seen.entries()].map(
    ([v, n]) => `${v === CELL_BAD ? 'corrupt' : v === 0 ? 'zeros' : `w${v}`} x${n}`,
  );
  return { value: CELL_BAD, detail: `cells of one unit disagree: ${parts.join(', ')}` };
}
