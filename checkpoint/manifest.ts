// The manifest (MANIFEST_NAME, the success marker of a published checkpoint)
// and the rank record (what one rank staged). Both are JSON; decoding checks
// every field, so a damaged file is refused with CKPT_CORRUPT instead of
// loading wrong parts.
import { StripeError } from '../common/errors.js';
import { CHECKPOINT_BOUNDS } from './limits.js';
import { checkPartName } from './names.js';

export const MANIFEST_FORMAT = 'stripefs-checkpoint/1';
export const RANK_FORMAT = 'stripefs-checkpoint-rank/1';

/** One part: where its bytes lie in which data file, and their crc32c (8 hex digits). */
export interface PartRecord {
  name: string;
  file: string;
  offset: number;
  bytes: number;
  crc32c: string;
}

export interface RankRecord {
  format: typeof RANK_FORMAT;
  step: number;
  rank: number;
  /** The rank's data file and its length. */
  file: string;
  bytes: number;
  parts: PartRecord[];
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  step: number;
  createdMs: number;
  /** Bytes of all parts. */
  bytes: number;
  ranks: number;
  files: { name: string; bytes: number }[];
  parts: PartRecord[];
  /** What the saver attached (JSON), e.g. the epoch and the loss. */
  meta?: unknown;
}

export function crcHex(crc: number): string {
  return (crc >>> 0).toString(16).padStart(8, '0');
}

export function encodeJson(value: Manifest | RankRecord): Buffer {
  return Buffer.from(`${JSON.stringify(value)}\n`);
}

function corrupt(where: string, why: string): StripeError {
  return new StripeError('CKPT_CORRUPT', `${where}: ${why}`, { path: where });
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function checkParts(parts: unknown, where: string): PartRecord[] {
  if (!Array.isArray(parts) || parts.length > CHECKPOINT_BOUNDS.partsMax)
    throw corrupt(where, 'parts is not a list');
  for (const p of parts as Partial<PartRecord>[]) {
    const ok =
      typeof p === 'object' &&
      p !== null &&
      typeof p.name === 'string' &&
      typeof p.file === 'string' &&
      isCount(p.offset) &&
      isCount(p.bytes) &&
      typeof p.crc32c === 'string' &&
      /^[0-9a-f]{8}$/.test(p.crc32c);
    if (!ok) throw corrupt(where, `malformed part ${JSON.stringify(p).slice(0, 200)}`);
    checkPartName(p.name as string);
  }
  return parts as PartRecord[];
}

function parse(data: Buffer, where: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(data.toString('utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw corrupt(where, `not a JSON object (${data.length} bytes)`);
}

export function decodeManifest(data: Buffer, where: string): Manifest {
  const m = parse(data, where);
  if (m.format !== MANIFEST_FORMAT)
    throw corrupt(where, `format ${String(m.format)}, expected ${MANIFEST_FORMAT}`);
  if (!isCount(m.step) || !isCount(m.createdMs) || !isCount(m.bytes) || !isCount(m.ranks))
    throw corrupt(where, 'step, createdMs, bytes or ranks is not a count');
  const files = m.files as { name: unknown; bytes: unknown }[];
  if (!Array.isArray(files) || files.some((f) => typeof f?.name !== 'string' || !isCount(f.bytes)))
    throw corrupt(where, 'files is not a list of {name, bytes}');
  const parts = checkParts(m.parts, where);
  const sizes = new Map(files.map((f) => [f.name as string, f.bytes as number]));
  let total = 0;
  for (const p of parts) {
    const fileBytes = sizes.get(p.file);
    if (fileBytes === undefined || p.offset + p.bytes > fileBytes)
      throw corrupt(where, `part ${p.name} lies outside its data file ${p.file}`);
    total += p.bytes;
  }
  if (total !== m.bytes) throw corrupt(where, `parts hold ${total} bytes, the manifest says ${m.bytes}`);
  return m as unknown as Manifest;
}

export function decodeRankRecord(data: Buffer, where: string): RankRecord {
  const r = parse(data, where);
  if (r.format !== RANK_FORMAT) throw corrupt(where, `format ${String(r.format)}, expected ${RANK_FORMAT}`);
  if (!isCount(r.step) || !isCount(r.rank) || !isCount(r.bytes) || typeof r.file !== 'string')
    throw corrupt(where, 'step, rank, file or bytes is malformed');
  const parts = checkParts(r.parts, where);
  if (parts.some((p) => p.file !== r.file || p.offset + p.bytes > (r.bytes as number)))
    throw corrupt(where, `a part lies outside the rank's data file ${r.file}`);
  return r as unknown as RankRecord;
}
