// Multipart uploads on disk. Each upload is a directory
// SCRATCH/uploads/BUCKET/UPLOAD_ID, in the folder of the identity that made
// it (s3/actors.ts: another identity's upload ids are not found), holding:
//   - `data`: the object being assembled, created with the key's layout.
//     Parts of the upload's slot size are written straight into it at
//     (part number - 1) x slot size, in parallel, by grow-only handles.
//   - one record per part, its facts in its name:
//     `p.NNNNN.SEQ.MD5.SIZE.s` (the part lies in its slot of `data`) or
//     `...f` (a part of another size: the record file holds its bytes).
//     A part uploaded again gets a later SEQ; the latest record counts.
// The directory's user.s3.upload attribute holds the key and the stored
// headers; user.s3.slot the slot size, set once by the first part
// that can claim it (create-only, so concurrent first parts agree).
import { randomBytes } from 'node:crypto';
import type { Layout, Stat, StripeClient } from '../../client/index.js';
import { StripeError } from '../../common/errors.js';
import { uploadsDirOf } from '../actors.js';
import { s3Error } from '../errors.js';
import { S3_LIMITS } from '../limits.js';
import { SLOT_XATTR, UPLOAD_XATTR } from './meta.js';

export const DATA_NAME = 'data';

export interface UploadRecord {
  key: string;
  initiatedMs: number;
  headers: Record<string, string>;
  userMeta: Record<string, string>;
}

export interface PartRecord {
  partNumber: number;
  seq: string;
  md5: string;
  sizeBytes: number;
  /** In its slot of `data`, or in its own record file. */
  inSlot: boolean;
  name: string;
  mtimeMs: number;
}

/** The folder of one upload, in the acting identity's folder `scratch`. */
export function uploadDir(scratch: string, bucket: string, uploadId: string): string {
  return `${uploadsDirOf(scratch)}/${bucket}/${uploadId}`;
}

export function newUploadId(): string {
  return `${Date.now().toString(36).padStart(9, '0')}${randomBytes(12).toString('hex')}`;
}

export function checkUploadId(uploadId: string): void {
  if (!/^[0-9a-z]{9}[0-9a-f]{24}$/.test(uploadId))
    throw s3Error('NoSuchUpload', 'The specified upload does not exist.', { uploadId });
}

export function checkPartNumber(text: string | undefined): number {
  const n = Number(text);
  if (!text || !/^\d+$/.test(text) || n < 1 || n > S3_LIMITS.partNumberMax)
    throw s3Error('InvalidArgument', `partNumber must be 1 to ${S3_LIMITS.partNumberMax}`);
  return n;
}

/** Monotonic per process and ordered across gateways by time: the later upload of a part wins. */
let lastSeq = '';
export function nextSeq(): string {
  let seq = `${Date.now().toString(36).padStart(9, '0')}${randomBytes(3).toString('hex')}`;
  if (seq <= lastSeq)
    seq = `${lastSeq.slice(0, 9)}${(Number.parseInt(lastSeq.slice(9), 16) + 1).toString(16).padStart(6, '0')}`;
  lastSeq = seq;
  return seq;
}

export function recordName(part: Omit<PartRecord, 'name' | 'mtimeMs'>): string {
  return `p.${String(part.partNumber).padStart(5, '0')}.${part.seq}.${part.md5}.${part.sizeBytes}.${part.inSlot ? 's' : 'f'}`;
}

export function parseRecordName(name: string, stat: Stat): PartRecord | undefined {
  const m = /^p\.(\d{5})\.([0-9a-z]+)\.([0-9a-f]{32})\.(\d+)\.([sf])$/.exec(name);
  if (!m) return undefined;
  return {
    partNumber: Number(m[1]),
    seq: m[2] as string,
    md5: m[3] as string,
    sizeBytes: Number(m[4]),
    inSlot: m[5] === 's',
    name,
    mtimeMs: stat.mtimeMs,
  };
}

/** `work` once per upload at a time: callers that come while it runs get its answer. */
function shared<T>(under: Map<string, Promise<T>>, dir: string, work: () => Promise<T>): Promise<T> {
  let running = under.get(dir);
  if (!running) {
    running = work().finally(() => under.delete(dir));
    under.set(dir, running);
  }
  return running;
}

const records = new Map<string, UploadRecord>();
const UPLOAD_RECORDS_CACHED_MAX = 1_024;

/** The upload's record (cached: it never changes), or NoSuchUpload; parts arriving together share one read. */
export async function readUpload(
  client: StripeClient,
  scratch: string,
  bucket: string,
  uploadId: string,
): Promise<UploadRecord> {
  checkUploadId(uploadId);
  const dir = uploadDir(scratch, bucket, uploadId);
  const cached = records.get(dir);
  if (cached) return cached;
  return shared(recordReads, dir, async () => {
    let record: UploadRecord;
    try {
      record = JSON.parse((await client.getXattr(dir, UPLOAD_XATTR)).toString('utf8')) as UploadRecord;
    } catch (err) {
      if (err instanceof StripeError && (err.code.startsWith('NS_') || err.code === 'XATTR_NOT_FOUND'))
        throw s3Error('NoSuchUpload', 'The specified upload does not exist.', { uploadId });
      throw err;
    }
    rememberUpload(dir, record);
    return record;
  });
}

const recordReads = new Map<string, Promise<UploadRecord>>();

/** The record of the upload in `dir`, as its creation here wrote it (its parts need not read it). */
export function rememberUpload(dir: string, record: UploadRecord): void {
  if (records.size >= UPLOAD_RECORDS_CACHED_MAX) records.clear();
  records.set(dir, record);
}

export function forgetUpload(scratch: string, bucket: string, uploadId: string): void {
  records.delete(uploadDir(scratch, bucket, uploadId));
}

/** Every part's latest record, by part number (older records of a part are listed in `stale`). */
export async function readParts(
  client: StripeClient,
  dir: string,
): Promise<{ parts: Map<number, PartRecord>; stale: PartRecord[] }> {
  const parts = new Map<number, PartRecord>();
  const stale: PartRecord[] = [];
  let after: string | undefined = 'p.';
  do {
    const page = await client.listPage(dir, { after, limit: S3_LIMITS.listKeysMax });
    for (const entry of page.entries) {
      const part = parseRecordName(entry.name, entry.stat);
      if (!part) continue;
      const before = parts.get(part.partNumber);
      if (before && before.seq > part.seq) stale.push(part);
      else {
        if (before) stale.push(before);
        parts.set(part.partNumber, part);
      }
    }
    after = page.next;
  } while (after !== undefined);
  return { parts, stale };
}

/** Whole units a part must be made of to go straight into its slot: stripe units, ec's whole stripes. */
export function slotAlignmentBytes(layout: Layout | undefined): number {
  if (!layout) return 1;
  // A part on the MDS shifts every object offset by its size: parts are written in order instead.
  if (layout.pattern === 'dom') return Number.POSITIVE_INFINITY;
  return layout.pattern === 'ec' ? (layout.k as number) * layout.stripeSize : layout.stripeSize;
}

const slots = new Map<string, number>();
/** Slot reads and claims under way, per upload: the parts that arrive together share one MDS call. */
const slotReads = new Map<string, Promise<number | undefined>>();
const slotClaims = new Map<string, Promise<number>>();

function rememberSlot(dir: string, slot: number): void {
  if (slots.size >= UPLOAD_RECORDS_CACHED_MAX) slots.clear();
  slots.set(dir, slot);
}

/**
 * The upload's slot size: the size of the first part (but the last) that was uploaded, when it is
 * made of whole alignment units; 0 when parts go to their own files. Set once, create-only. The
 * parts of one upload that arrive together (awscli sends ten) share one claim: one SetXattr
 * rather than one each, the losers then polling for the winner's.
 */
export async function claimSlot(client: StripeClient, dir: string, candidateBytes: number): Promise<number> {
  const known = slots.get(dir);
  if (known !== undefined) return known;
  return shared(slotClaims, dir, async () => {
    let slot = candidateBytes;
    try {
      await client.setXattr(dir, SLOT_XATTR, String(candidateBytes), { create: true });
    } catch (err) {
      if (!(err instanceof StripeError) || err.code !== 'XATTR_EXISTS') throw err;
      slot = await readSlotOfWinner(client, dir);
    }
    rememberSlot(dir, slot);
    return slot;
  });
}

/**
 * The slot another part claimed. Its create is seen by the MDS's next mutation at once but by
 * reads only once its batch is durable (the claimer's call returns then): wait for that.
 */
async function readSlotOfWinner(client: StripeClient, dir: string): Promise<number> {
  const deadline = Date.now() + SLOT_READ_WAIT_MS_MAX;
  for (let waitMs = 5; ; waitMs = Math.min(2 * waitMs, 200)) {
    const slot = await knownSlot(client, dir);
    if (slot !== undefined) return slot;
    if (Date.now() > deadline)
      throw s3Error('SlowDown', `${dir}: the slot size another part claimed is not readable yet`);
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}

/** How long a part waits for the slot size another part has just claimed (its batch becoming durable). */
const SLOT_READ_WAIT_MS_MAX = 10_000;

/** The slot size if one was claimed, without claiming (kept once read: it never changes). */
export async function knownSlot(client: StripeClient, dir: string): Promise<number | undefined> {
  const known = slots.get(dir);
  if (known !== undefined) return known;
  return shared(slotReads, dir, async () => {
    try {
      const slot = Number((await client.getXattr(dir, SLOT_XATTR)).toString('utf8'));
      rememberSlot(dir, slot);
      return slot;
    } catch (err) {
      if (err instanceof StripeError && err.code === 'XATTR_NOT_FOUND') return undefined;
      throw err;
    }
  });
}

export function forgetSlot(dir: string): void {
  slots.delete(dir);
}
