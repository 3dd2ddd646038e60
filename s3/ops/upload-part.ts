// UploadPart: a part of the upload's slot size is written straight into its
// place in the object being assembled (data at (n - 1) x slot), so completing
// needs no copy; a part of another size goes to its own file. Either way the
// part's record appears only once its bytes are stored and checked.

import { randomBytes } from 'node:crypto';
import type { Layout, StripeClient, StripeFileHandle } from '../../client/index.js';
import { RequestBody } from '../body.js';
import { s3Error } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { S3_LIMITS } from '../limits.js';
import { emptyReply, type S3Reply } from '../reply.js';
import type { S3Request } from '../request.js';
import { batchesSlots, writeToSlot } from '../store/slot-writer.js';
import {
  checkPartNumber,
  claimSlot,
  DATA_NAME,
  knownSlot,
  nextSeq,
  parseRecordName,
  readUpload,
  recordName,
  slotAlignmentBytes,
  uploadDir,
} from '../store/uploads.js';
import { budgetBytesOf, type LentTarget, writeBody } from './put-object.js';

const layouts = new Map<string, Layout | undefined>();
const LAYOUTS_CACHED_MAX = 1_024;

/** The layout of the upload's data file (fixed when the upload was created). */
export async function dataLayout(client: StripeClient, dir: string): Promise<Layout | undefined> {
  if (layouts.has(dir)) return layouts.get(dir);
  const layout = (await client.stat(`${dir}/${DATA_NAME}`)).layout;
  if (layouts.size >= LAYOUTS_CACHED_MAX) layouts.clear();
  layouts.set(dir, layout);
  return layout;
}

async function slotFor(
  gateway: Gateway,
  dir: string,
  declared: number | undefined,
): Promise<number | undefined> {
  const slot = await knownSlot(gateway.client, dir);
  if (slot !== undefined || declared === undefined) return slot;
  const alignment = slotAlignmentBytes(await dataLayout(gateway.client, dir));
  if (declared < gateway.partBytesMin || declared % alignment !== 0 || declared === 0) return undefined;
  return claimSlot(gateway.client, dir, declared);
}

/** Part numbers this process has stored per upload (a bit each), for a bounded number of uploads. */
const partsStored = new Map<string, Uint8Array>();

/**
 * Records that part `partNumber` of the upload in `dir` was stored here; true when it had been
 * before (so an older record of it may be there to remove).
 */
function storedBefore(dir: string, partNumber: number): boolean {
  let bits = partsStored.get(dir);
  if (!bits) {
    if (partsStored.size >= LAYOUTS_CACHED_MAX) partsStored.clear();
    bits = new Uint8Array(Math.ceil((S3_LIMITS.partNumberMax + 1) / 8));
    partsStored.set(dir, bits);
  }
  const byte = partNumber >> 3;
  const bit = 1 << (partNumber & 7);
  const before = ((bits[byte] as number) & bit) !== 0;
  bits[byte] = (bits[byte] as number) | bit;
  return before;
}

/** The upload in `dir` is completed or aborted. */
export function forgetPartsStored(dir: string): void {
  partsStored.delete(dir);
}

/** Removes the records of this part older than `keep` (a part uploaded again). */
async function dropOlder(client: StripeClient, dir: string, keep: string, partNumber: number): Promise<void> {
  const prefix = `p.${String(partNumber).padStart(5, '0')}.`;
  const page = await client.listPage(dir, { after: prefix, limit: 16 });
  for (const entry of page.entries) {
    if (!entry.name.startsWith(prefix) || entry.name === keep) continue;
    const part = parseRecordName(entry.name, entry.stat);
    const kept = parseRecordName(keep, entry.stat);
    if (part && kept && part.seq < kept.seq)
      // Already removed by a later upload of the part: the newest record counts anyway.
      await client.unlink(`${dir}/${entry.name}`).catch(() => undefined);
  }
}

/** Writes a part's bytes into an open handle from `position`; answers the bytes written and their MD5. */
export type PartFill = (
  handle: StripeFileHandle,
  position: number,
) => Promise<{ written: number; md5: string }>;

/**
 * Lends a part's bytes from `position` to `target` (whose writeLent answers at once and settles
 * `released` once they are durable); answers the bytes and their MD5.
 */
export type LentPartFill = (
  target: LentTarget,
  position: number,
) => Promise<{ written: number; md5: string }>;

/** Buffers of one part that may wait in its upload's slot writer at once (memory stays bounded). */
const SLOT_BUFFERS_QUEUED_MAX = 2;

/** A part written into its slot through its own handle, whose close makes it durable. */
async function fillSlot(gateway: Gateway, dir: string, position: number, fill: PartFill) {
  // Its close makes the part durable and commits no size: Complete grows `data` once.
  const handle = await gateway.client.open(`${dir}/${DATA_NAME}`, 'r+', { growOnly: true, deferSize: true });
  try {
    return await fill(handle, position);
  } finally {
    await handle.close();
  }
}

/** A part's buffers queued for its upload's slot writer, written with its neighbours'; answers once all are durable. */
async function fillBatched(gateway: Gateway, dir: string, position: number, lent: LentPartFill) {
  const durable: Promise<void>[] = [];
  const target: LentTarget = {
    writeLent: async (buffer, at) => {
      while (durable.length >= SLOT_BUFFERS_QUEUED_MAX) await durable.shift();
      const written = writeToSlot(gateway.client, dir, buffer, at);
      // Awaited below (or by the loop above); a failure fails the part there.
      written.catch(() => undefined);
      durable.push(written);
      return { released: written };
    },
  };
  const filled = await lent(target, position);
  await Promise.all(durable);
  return filled;
}

/** The upload's directory, once the upload is known to exist and to be for the request's key. */
export async function partTarget(
  gateway: Gateway,
  request: S3Request,
): Promise<{ dir: string; uploadId: string; partNumber: number }> {
  const bucket = request.bucket as string;
  const uploadId = request.query.get('uploadId') as string;
  const partNumber = checkPartNumber(request.query.get('partNumber'));
  const upload = await readUpload(gateway.client, gateway.scratch, bucket, uploadId);
  if (upload.key !== request.key)
    throw s3Error('NoSuchUpload', 'the upload is for another key', { uploadId });
  return { dir: uploadDir(gateway.scratch, bucket, uploadId), uploadId, partNumber };
}

/**
 * Stores part `partNumber` of `sizeBytes` (undefined: not known before the bytes arrive): into its
 * slot of the data file when it has the slot size, else into a file of its own; its record appears
 * only once `fill` wrote and checked every byte. Answers the part's MD5.
 */
export async function storePart(
  gateway: Gateway,
  dir: string,
  partNumber: number,
  sizeBytes: number | undefined,
  fill: PartFill,
  lent?: LentPartFill,
): Promise<string> {
  const slot = await slotFor(gateway, dir, sizeBytes);
  const inSlot = slot !== undefined && slot > 0 && sizeBytes === slot;
  const batched = inSlot && lent !== undefined && batchesSlots(await dataLayout(gateway.client, dir));
  const stored = await gateway.uploads.run(budgetBytesOf(sizeBytes), async () => {
    if (inSlot) {
      const filled = batched
        ? await fillBatched(gateway, dir, (partNumber - 1) * slot, lent)
        : await fillSlot(gateway, dir, (partNumber - 1) * slot, fill);
      const record = recordName({
        partNumber,
        seq: nextSeq(),
        md5: filled.md5,
        sizeBytes: filled.written,
        inSlot: true,
      });
      await (await gateway.client.open(`${dir}/${record}`, 'wx')).close();
      return { record, md5: filled.md5 };
    }
    const temporary = `${dir}/t.${randomBytes(8).toString('hex')}`;
    const layout = await dataLayout(gateway.client, dir);
    const handle = await gateway.client.open(temporary, 'wx', layout ? { layout } : {});
    try {
      const filled = await fill(handle, 0);
      await handle.close();
      const record = recordName({
        partNumber,
        seq: nextSeq(),
        md5: filled.md5,
        sizeBytes: filled.written,
        inSlot: false,
      });
      await gateway.client.rename(temporary, `${dir}/${record}`);
      return { record, md5: filled.md5 };
    } catch (err) {
      // The part's own failure is answered; a write handle that failed has nothing more to flush.
      await handle.close().catch(() => undefined);
      // A temporary file left behind goes with its upload (complete or abort).
      await gateway.client.unlink(temporary).catch(() => undefined);
      throw err;
    }
  });
  // Older records are looked for (a listing: one MDS call more per part) only when this
  // process stored the part before. One uploaded again through another gateway process, or before
  // a restart, keeps its older record until the upload completes or is aborted (its folder goes
  // then); ListParts and Complete take the newest record anyway.
  if (storedBefore(dir, partNumber)) await dropOlder(gateway.client, dir, stored.record, partNumber);
  return stored.md5;
}

export async function uploadPart(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const { dir, partNumber } = await partTarget(gateway, request);
  const body = new RequestBody(request.raw, { payload: request.auth.payload, headers: request.headers });
  const declared = body.declaredBytes;
  if (declared !== undefined && declared > S3_LIMITS.partBytesMax)
    throw s3Error('EntityTooLarge', `a part is at most ${S3_LIMITS.partBytesMax} bytes`);
  const layout = await dataLayout(gateway.client, dir);
  const fill = async (handle: LentTarget, position: number) => {
    const written = await writeBody(body, handle, position, layout);
    return { written, md5: body.md5Hex() };
  };
  const md5 = await storePart(gateway, dir, partNumber, declared, fill, fill);
  return emptyReply(200, { etag: `"${md5}"` });
}
