// Data on the MDS (Lustre's DoM): a file whose layout has a dom component keeps
// its first domBytes in the MDS database, under B/<inode> as raw bytes (a
// version byte, the crc32c, the data; records from before were JSON with the
// data in base64, and are still read), written in the same
// transaction (and so the same synced group commit) as the namespace change
// that made them: a create carrying its content, or a writer's commit of size
// and mtime. Each record carries a crc32c of its bytes, checked on every read
// and by the verify pass (fsck, scrub): the database is one copy, so a bad
// record is reported, never served. The file's record keeps the stored length
// (NodeRecord.domStored), so opens of files with nothing stored read no record
// and a removal knows what it frees without reading it.
import { crc32c, StripeError } from '../common/index.js';
import type { MdsDb } from './db.js';
import { KEYS } from './keys.js';
import type { NodeRecord } from './records.js';
import type { Reader, Txn } from './txn.js';

/** A record as older MDSs wrote it: JSON, the data in base64 (read, never written now). */
interface JsonDomRecord {
  crc: number;
  data: string;
}

/** The first byte of a raw record (a JSON record starts with '{'). */
const RAW_RECORD_V1 = 1;
const RAW_HEADER_BYTES = 5;

/** The raw record of `data`: version, crc32c (little-endian), the bytes. */
export function encodeDom(data: Uint8Array): Buffer {
  const record = Buffer.allocUnsafe(RAW_HEADER_BYTES + data.length);
  record[0] = RAW_RECORD_V1;
  record.writeUInt32LE(crc32c(data), 1);
  record.set(data, RAW_HEADER_BYTES);
  return record;
}

/** What the MDS holds for data on the MDS, as statfs and df report it. */
export interface DomUsage {
  files: number;
  bytes: number;
}

/** Bytes written at an offset of a file's dom part. */
export interface DomPatch {
  offset: number;
  data: Uint8Array;
}

function corrupt(ino: number, why: string): StripeError {
  return new StripeError(
    'NS_DOM_CORRUPT',
    `inode ${ino}: the bytes kept on the MDS ${why}; rewrite the file from a good copy`,
    { inode: ino },
  );
}

/** A record's crc and data: raw, or JSON as older MDSs wrote it. */
function parseRecord(ino: number, record: Buffer): { crc: number; data: Buffer } {
  if (record[0] === RAW_RECORD_V1 && record.length >= RAW_HEADER_BYTES)
    return { crc: record.readUInt32LE(1), data: record.subarray(RAW_HEADER_BYTES) };
  try {
    const old = JSON.parse(record.toString('utf8')) as JsonDomRecord;
    return { crc: old.crc, data: Buffer.from(old.data, 'base64') };
  } catch {
    throw corrupt(ino, 'are not a record this MDS can read');
  }
}

/** A stored record's bytes, checked against its crc and the length the file's record expects. */
export function decodeDom(ino: number, record: Buffer | undefined, expectedBytes: number): Buffer {
  if (!record) throw corrupt(ino, `are missing (${expectedBytes} expected)`);
  const { crc, data } = parseRecord(ino, record);
  if (data.length !== expectedBytes)
    throw corrupt(ino, `hold ${data.length} bytes, ${expectedBytes} expected`);
  if (crc32c(data) !== crc) throw corrupt(ino, 'fail their checksum');
  return data;
}

export class DomStore {
  private applied: DomUsage = { files: 0, bytes: 0 };
  /** Bytes of records read from the database since start, to serve opens (metrics). */
  bytesRead = 0;
  /** Files an OpenMany answered without their bytes since start, its reply full (metrics). */
  answersOmitted = 0;
  private readonly deltas = new WeakMap<Txn, DomUsage>();

  /** Loads the usage counter (absent in databases from before data on the MDS: nothing stored). */
  async init(db: MdsDb): Promise<void> {
    const stored = (await db.get(KEYS.domCounter)) as DomUsage | undefined;
    this.applied = stored ?? { files: 0, bytes: 0 };
  }

  get usage(): DomUsage {
    return { ...this.applied };
  }

  /** The file's stored bytes (empty when none), checked; `reader` sees acknowledged state or a transaction's. */
  async read(reader: Reader, node: NodeRecord): Promise<Buffer> {
    const stored = node.domStored ?? 0;
    if (stored === 0) return Buffer.alloc(0);
    const record = await reader.getRaw(KEYS.dom(node.ino));
    this.bytesRead += record?.length ?? 0;
    return decodeDom(node.ino, record, stored);
  }

  /** The raw records of `nodes` (acknowledged state) in one getMany, unchecked: decodeDom checks each. */
  async readMany(db: MdsDb, nodes: readonly NodeRecord[]): Promise<Map<NodeRecord, Buffer | undefined>> {
    const records = await db.getMany<string, Buffer>(
      nodes.map((n) => KEYS.dom(n.ino)),
      { valueEncoding: 'buffer' },
    );
    for (const record of records) this.bytesRead += record?.length ?? 0;
    return new Map(nodes.map((n, i) => [n, records[i]]));
  }

  /**
   * Applies `patch` to the file's bytes and keeps at most `keepBytes` (min of the committed size
   * and the layout's domBytes); sets node.domStored. A patch that covers every stored byte does
   * not read the old record, so rewriting a file whole replaces a corrupt one.
   */
  async write(txn: Txn, node: NodeRecord, patch: DomPatch | null, keepBytes: number): Promise<void> {
    const before = node.domStored ?? 0;
    const covered = patch !== null && patch.offset === 0 && patch.data.length >= Math.min(before, keepBytes);
    // A copy: the stored bytes may be a view of a record still being written, and are patched here.
    let bytes = covered || before === 0 ? Buffer.alloc(0) : Buffer.from(await this.read(txn, node));
    if (patch && patch.data.length > 0) {
      const end = patch.offset + patch.data.length;
      if (end > bytes.length) bytes = Buffer.concat([bytes, Buffer.alloc(end - bytes.length)]);
      bytes.set(patch.data, patch.offset);
    }
    if (bytes.length > keepBytes) bytes = bytes.subarray(0, keepBytes);
    if (bytes.length === before && patch === null) return;
    if (bytes.length === 0) txn.del(KEYS.dom(node.ino));
    else txn.putRaw(KEYS.dom(node.ino), encodeDom(bytes));
    this.count(txn, (bytes.length > 0 ? 1 : 0) - (before > 0 ? 1 : 0), bytes.length - before);
    if (bytes.length > 0) node.domStored = bytes.length;
    else delete node.domStored;
  }

  /** A removed file's bytes go in the same batch as its entry. */
  drop(txn: Txn, node: NodeRecord): void {
    const before = node.domStored ?? 0;
    if (before === 0) return;
    txn.del(KEYS.dom(node.ino));
    this.count(txn, -1, -before);
  }

  private count(txn: Txn, files: number, bytes: number): void {
    const before = this.deltas.get(txn);
    const total = { files: (before?.files ?? 0) + files, bytes: (before?.bytes ?? 0) + bytes };
    this.deltas.set(txn, total);
    txn.put(KEYS.domCounter, {
      files: this.applied.files + total.files,
      bytes: this.applied.bytes + total.bytes,
    } satisfies DomUsage);
    if (before === undefined)
      txn.onApply.push(() => {
        const delta = this.deltas.get(txn) as DomUsage;
        this.applied = { files: this.applied.files + delta.files, bytes: this.applied.bytes + delta.bytes };
      });
  }
}
