// The ObjectStore conformance suite (store-conformance.ts) against the real
// OST backend: object files and a classic-level index in a real folder,
// with 4 KiB checksum blocks (many blocks per object, records crossed
// quickly) and with the OSS's 64 KiB blocks and O_DIRECT writes; and the same
// with small objects kept as records of the segment log (oss/store/segment-log.ts),
// its segments small enough that the suite's writes seal and compact some.
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { LIMITS } from '../../common/limits.js';
import { fanoutOf } from '../../oss/object-id.js';
import { type ObjectStore, openOst } from '../../oss/store/index.js';
import type { Ost } from '../../oss/store/ost.js';
import { describeObjectStore } from './store-conformance.js';

async function flipBitAt(path: string, offset: number): Promise<void> {
  const fh = await open(path, 'r+');
  try {
    const byte = Buffer.alloc(1);
    await fh.read(byte, 0, 1, offset);
    byte[0] = byte[0]! ^ 0x10;
    await fh.write(byte, 0, 1, offset);
  } finally {
    await fh.close();
  }
}

function flipBit(dir: string, objectId: string, offset: number): Promise<void> {
  return flipBitAt(join(dir, 'objects', fanoutOf(objectId), objectId), offset);
}

/** Flips the bit where the object's bytes are: its record in a log segment, or its file. */
async function flipStoredBit(
  dir: string,
  objectId: string,
  offset: number,
  store: ObjectStore,
): Promise<void> {
  const log = (await (store as Ost).storedMeta(objectId))?.log;
  if (!log) return flipBit(dir, objectId, offset);
  const [segment, at] = log;
  await flipBitAt(join(dir, 'log', `${segment.toString(16).padStart(8, '0')}.seg`), at + offset);
}

describeObjectStore('object files and a classic-level index, 4 KiB blocks', {
  blockBytes: 4096,
  open: (dir, { capacityBytes, faults }) =>
    openOst({ dir, name: 'ost0', capacityBytes, fsync: true, blockBytes: 4096, faults }),
  corrupt: flipBit,
});

describeObjectStore('object files and a classic-level index, 64 KiB blocks, O_DIRECT', {
  blockBytes: LIMITS.checksumBlockBytes,
  open: (dir, { capacityBytes, faults }) =>
    openOst({ dir, name: 'ost0', capacityBytes, fsync: true, directIo: true, faults }),
  corrupt: flipBit,
});

describeObjectStore('small objects in a segment log (up to 64 KiB), 4 KiB blocks', {
  blockBytes: 4096,
  open: (dir, { capacityBytes, faults }) =>
    openOst({
      dir,
      name: 'ost0',
      capacityBytes,
      fsync: true,
      blockBytes: 4096,
      faults,
      smallObjectBytes: 64 * 1024,
      logSegmentBytes: 128 * 1024,
      logDeadShareMax: 0.3,
    }),
  corrupt: flipStoredBit,
});

describeObjectStore('small objects in a segment log (up to 1 MiB), 64 KiB blocks, O_DIRECT', {
  blockBytes: LIMITS.checksumBlockBytes,
  open: (dir, { capacityBytes, faults }) =>
    openOst({
      dir,
      name: 'ost0',
      capacityBytes,
      fsync: true,
      directIo: true,
      faults,
      smallObjectBytes: 1024 * 1024,
      logSegmentBytes: 1024 * 1024,
    }),
  corrupt: flipStoredBit,
});
