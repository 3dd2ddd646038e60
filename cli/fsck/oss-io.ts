// The OSS calls fsck makes, over the contract (OssService): list a PG of an
// OST, read a whole object (the OSS verifies every block's crc32c and answers
// OBJ_CHECKSUM when one fails), write one back whole, delete one. One channel
// per OSS address, bounded by the caller's semaphore.
import type * as grpc from '@grpc/grpc-js';
import { ticketOptions } from '../../common/auth/signing.js';
import { ChannelCache } from '../../common/channels.js';
import { crc32c } from '../../common/checksum.js';
import { StripeError } from '../../common/errors.js';
import { call, deadlineIn, fromGrpcError } from '../../common/grpc.js';
import { LIMITS } from '../../common/limits.js';
import type { OssServiceClient } from '../../proto/gen/stripefs/v1/OssService.js';
import { contract, type ObjectRef } from '../../proto/index.js';

/** Deadline of one fsck request; a whole-object read of up to 64 MiB fits. */
export const FSCK_REQUEST_TIMEOUT_MS = 30_000;
/** ListObjects page size fsck asks for. */
const LIST_PAGE_OBJECTS = 1_000;

export interface ListedObject {
  objectId: string;
  size: number;
  version: number;
}

export class OssIo {
  private readonly clients: ChannelCache<OssServiceClient>;

  /** `ticketOf`: the service ticket every call carries (none: the MDS runs without auth). */
  constructor(ticketOf: () => string | undefined = () => undefined) {
    this.clients = new ChannelCache(contract().OssService, ticketOptions(ticketOf));
  }

  private client(address: string): OssServiceClient {
    return this.clients.get(address);
  }

  private deadline(): grpc.CallOptions {
    return deadlineIn(FSCK_REQUEST_TIMEOUT_MS);
  }

  /** Every object of one PG on one OST. */
  async list(address: string, ostId: number, poolId: number, pg: number): Promise<ListedObject[]> {
    const all: ListedObject[] = [];
    let cursor = '';
    do {
      const page = await call(
        this.client(address),
        'ListObjects',
        { ostId, poolId, pg, cursor, limit: LIST_PAGE_OBJECTS },
        this.deadline(),
      );
      for (const o of page.objects) all.push({ objectId: o.objectId, size: o.size, version: o.version });
      cursor = page.nextCursor;
    } while (cursor !== '');
    return all;
  }

  /** The whole object, verified by the OSS block by block and here end to end. */
  readWhole(address: string, ref: ObjectRef, size: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const parts: Buffer[] = [];
      const stream = this.client(address).ReadRange({ ref, offset: 0, length: size }, this.deadline());
      stream.on('data', (piece: { data: Buffer; crc32c: number }) => {
        if (piece.data.length > 0 && crc32c(piece.data) !== piece.crc32c) {
          stream.cancel();
          reject(new StripeError('OBJ_CHECKSUM', `${ref.objectId} on OST ${ref.ostId}: bad crc on the wire`));
          return;
        }
        parts.push(piece.data);
      });
      stream.on('error', (err: unknown) => reject(fromGrpcError(err)));
      stream.on('end', () => resolve(Buffer.concat(parts)));
    });
  }

  /** Writes `data` as the whole object (truncating it to that size), then fsyncs it. */
  async writeWhole(address: string, ref: ObjectRef, data: Buffer): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const stream = this.client(address).WriteChunk(this.deadline(), (err) => {
        if (err) reject(fromGrpcError(err));
        else resolve();
      });
      stream.write({ header: { ref, offset: 0, length: data.length, crc32c: crc32c(data), truncate: true } });
      for (let at = 0; at < data.length; at += LIMITS.streamPieceBytes)
        stream.write({ data: data.subarray(at, at + LIMITS.streamPieceBytes) });
      stream.end();
    });
    await call(this.client(address), 'Flush', { ref }, this.deadline());
  }

  async delete(address: string, ref: ObjectRef): Promise<void> {
    await call(this.client(address), 'DeleteObject', { ref }, this.deadline());
  }

  close(): void {
    this.clients.closeAll();
  }
}
