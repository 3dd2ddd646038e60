// Reading a published checkpoint back: the manifest, then every part read in
// parallel lanes (each lane a contiguous run of parts read through its own
// handle, so each handle's readahead sees a sequential reader), each part's
// crc32c checked against the manifest. verify() reads the same way into a
// scratch buffer and reports instead of throwing.
import { Readable, Transform } from 'node:stream';
import type { StripeClient, StripeFileHandle } from '../client/index.js';
import { crc32c } from '../common/checksum.js';
import { StripeError } from '../common/errors.js';
import type { CheckpointLimits } from './limits.js';
import { CHECKPOINT_BOUNDS } from './limits.js';
import { crcHex, decodeManifest, type Manifest, type PartRecord } from './manifest.js';
import { joinPath, MANIFEST_NAME, stepName } from './names.js';
import { isCode, mapBounded, readSmallFile } from './namespace.js';
import { asBuffer } from './parts.js';

export async function readManifest(client: StripeClient, dir: string, step: number): Promise<Manifest> {
  const path = joinPath(dir, stepName(step), MANIFEST_NAME);
  let data: Buffer;
  try {
    data = await readSmallFile(client, path, CHECKPOINT_BOUNDS.manifestBytesMax);
  } catch (err) {
    if (isCode(err, 'NS_NOT_FOUND', 'NS_NOT_DIR'))
      throw new StripeError('CKPT_NOT_FOUND', `no checkpoint of step ${step} in ${dir}`, { dir, step });
    throw err;
  }
  const manifest = decodeManifest(data, path);
  if (manifest.step !== step)
    throw new StripeError('CKPT_CORRUPT', `${path} is the manifest of step ${manifest.step}`, { path });
  return manifest;
}

/** Parts in file order cut into at most `lanes` contiguous runs of about equal bytes. */
export function lanesOf(parts: readonly PartRecord[], lanes: number): PartRecord[][] {
  const sorted = [...parts].sort((a, b) =>
    a.file === b.file ? a.offset - b.offset : a.file < b.file ? -1 : 1,
  );
  const total = sorted.reduce((sum, p) => sum + p.bytes, 0);
  const share = Math.max(1, Math.ceil(total / lanes));
  const out: PartRecord[][] = [];
  let lane: PartRecord[] = [];
  let laneBytes = 0;
  for (const part of sorted) {
    lane.push(part);
    laneBytes += part.bytes;
    if (laneBytes >= share && out.length < lanes - 1) {
      out.push(lane);
      lane = [];
      laneBytes = 0;
    }
  }
  if (lane.length > 0) out.push(lane);
  return out;
}

export interface PartOutcome {
  part: PartRecord;
  /** Bytes read and their crc32c; fewer bytes than the part when its data file is short or missing. */
  bytesRead: number;
  crc32c: string;
  error?: string;
}

/**
 * Reads the parts of one lane, each into `target(part)` (or a scratch buffer when it gives none)
 * in pieces of `pieceBytes`, and reports each part as it finishes.
 */
async function readLane(
  client: StripeClient,
  stepPath: string,
  lane: readonly PartRecord[],
  pieceBytes: number,
  target: (part: PartRecord) => Buffer | undefined,
  done: (outcome: PartOutcome) => void,
): Promise<void> {
  let handle: StripeFileHandle | undefined;
  let openFile: string | undefined;
  let scratch: Buffer | undefined;
  try {
    for (const part of lane) {
      if (openFile !== part.file) {
        await handle?.close();
        handle = undefined;
        openFile = part.file;
        try {
          handle = await client.open(joinPath(stepPath, part.file), 'r');
        } catch (err) {
          if (!isCode(err, 'NS_NOT_FOUND')) throw err;
        }
      }
      if (!handle) {
        done({ part, bytesRead: 0, crc32c: crcHex(0), error: `data file ${part.file} is missing` });
        continue;
      }
      const into = target(part);
      let crc = 0;
      let at = 0;
      while (at < part.bytes) {
        const length = Math.min(pieceBytes, part.bytes - at);
        if (!into) scratch ??= Buffer.allocUnsafe(pieceBytes);
        const buffer = into ?? (scratch as Buffer);
        const bufferAt = into ? at : 0;
        const { bytesRead } = await handle.read(buffer, bufferAt, length, part.offset + at);
        crc = crc32c(buffer.subarray(bufferAt, bufferAt + bytesRead), crc);
        at += bytesRead;
        if (bytesRead < length) break;
      }
      done({
        part,
        bytesRead: at,
        crc32c: crcHex(crc),
        ...(at < part.bytes ? { error: `data file ${part.file} ends inside the part` } : {}),
      });
    }
  } finally {
    await handle?.close();
  }
}

function badPart(stepPath: string, o: PartOutcome): StripeError | undefined {
  if (o.error)
    return new StripeError('CKPT_CORRUPT', `${stepPath}: part ${o.part.name}: ${o.error}`, {
      part: o.part.name,
    });
  if (o.crc32c !== o.part.crc32c)
    return new StripeError(
      'CKPT_CORRUPT',
      `${stepPath}: part ${o.part.name} has crc32c ${o.crc32c}, the manifest says ${o.part.crc32c}`,
      { part: o.part.name, expected: o.part.crc32c, found: o.crc32c },
    );
  return undefined;
}

/**
 * Every part of `parts` read in parallel lanes, each checked: into the caller's memory where
 * `into` gives some (exactly the part's size: REQ_INVALID otherwise, before anything is read),
 * else into a buffer of its own.
 */
export async function loadBuffers(
  client: StripeClient,
  stepPath: string,
  parts: readonly PartRecord[],
  limits: CheckpointLimits,
  into: ReadonlyMap<string, Uint8Array> = new Map(),
): Promise<Map<string, Buffer>> {
  const buffers = new Map(
    parts.map((p) => {
      const given = into.get(p.name);
      if (given && given.length !== p.bytes)
        throw new StripeError(
          'REQ_INVALID',
          `part ${p.name} has ${p.bytes} bytes; the memory given for it has ${given.length}`,
          { part: p.name, bytes: p.bytes, given: given.length },
        );
      return [p.name, given ? asBuffer(given) : Buffer.allocUnsafe(p.bytes)];
    }),
  );
  let failure: StripeError | undefined;
  await mapBounded(lanesOf(parts, limits.loadLanesMax), limits.loadLanesMax, (lane) =>
    readLane(
      client,
      stepPath,
      lane,
      limits.loadReadBytes,
      (part) => buffers.get(part.name),
      (outcome) => {
        failure ??= badPart(stepPath, outcome);
      },
    ),
  );
  if (failure) throw failure;
  return buffers;
}

/** Every part read and checked, nothing kept: what verify reports. */
export async function checkParts(
  client: StripeClient,
  stepPath: string,
  parts: readonly PartRecord[],
  limits: CheckpointLimits,
  onPart?: (outcome: PartOutcome) => void,
): Promise<PartOutcome[]> {
  const outcomes: PartOutcome[] = [];
  await mapBounded(lanesOf(parts, limits.loadLanesMax), limits.loadLanesMax, (lane) =>
    readLane(
      client,
      stepPath,
      lane,
      limits.loadReadBytes,
      () => undefined,
      (outcome) => {
        outcomes.push(outcome);
        onPart?.(outcome);
      },
    ),
  );
  return outcomes;
}

export function isBad(outcome: PartOutcome): boolean {
  return outcome.error !== undefined || outcome.crc32c !== outcome.part.crc32c;
}

/** One part as a stream (opened when first read); it fails with CKPT_CORRUPT at its end if its crc32c differs. */
export function partStream(client: StripeClient, stepPath: string, part: PartRecord): Readable {
  let crc = 0;
  let bytes = 0;
  const check = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      crc = crc32c(chunk, crc);
      bytes += chunk.length;
      callback(null, chunk);
    },
    flush(callback) {
      callback(
        badPart(stepPath, {
          part,
          bytesRead: bytes,
          crc32c: crcHex(crc),
          ...(bytes < part.bytes ? { error: `data file ${part.file} ends inside the part` } : {}),
        }),
      );
    },
  });
  const source =
    part.bytes === 0
      ? Readable.from([])
      : client.createReadStream(joinPath(stepPath, part.file), {
          start: part.offset,
          end: part.offset + part.bytes - 1,
        });
  source.on('error', (err) => check.destroy(err));
  return source.pipe(check);
}
