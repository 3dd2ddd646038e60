// The ObjectStore conformance suite (store-conformance.ts) against the real
// OST backend: object files and a classic-level index in a real folder,
// with 4 KiB checksum blocks (many blocks per object, records crossed
// quickly) and with the OSS's 64 KiB blocks and O_DIRECT writes.
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { LIMITS } from '../../common/limits.js';
import { fanoutOf } from '../../oss/object-id.js';
import { openOst } from '../../oss/store/index.js';
import { describeObjectStore } from './store-conformance.js';

async function flipBit(dir: string, objectId: string, offset: number): Promise<void> {
  const fh = await open(join(dir, 'objects', fanoutOf(objectId), objectId), 'r+');
  try {
    const byte = Buffer.alloc(1);
    await fh.read(byte, 0, 1, offset);
    byte[0] = byte[0]! ^ 0x10;
    await fh.write(byte, 0, 1, offset);
  } finally {
    await fh.close();
  }
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
