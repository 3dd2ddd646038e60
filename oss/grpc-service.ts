// OssService over gRPC: the contract's request path, and the fallback data
// path when a client cannot use the bulk port. Thin: OssCore does the work.
import type * as grpc from '@grpc/grpc-js';
import { addressOfPeer } from '../common/auth/cidr.js';
import { crc32cCombine } from '../common/bulk/crc-combine.js';
import { StripeError } from '../common/errors.js';
import { toGrpcError, unary } from '../common/grpc.js';
import type { RequestTag } from '../common/jobs/job-id.js';
import { tagOfCall } from '../common/jobs/tag-interceptor.js';
import { LIMITS } from '../common/limits.js';
import type {
  DeleteObjectRequest__Output,
  DeleteObjectResponse,
  FlushRequest__Output,
  FlushResponse,
  ListObjectsRequest__Output,
  ListObjectsResponse,
  MarkStaleRequest__Output,
  MarkStaleResponse,
  OssServiceHandlers,
  ReadRangeRequest__Output,
  ReadRangeResponse,
  RecoverPgRequest__Output,
  RecoverPgResponse,
  StatObjectRequest__Output,
  StatObjectResponse,
  WriteChunkRequest__Output,
  WriteChunkResponse,
} from '../proto/index.js';
import { objectRefFromWire } from '../wire/index.js';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, MARK_STALE_IDS_MAX } from './limits.js';
import { validateObjectId } from './object-id.js';
import type { OssCore } from './ops.js';
import type { Recoverer } from './recovery/recover-pg.js';
import { recoverRequestFromWire } from './recovery/wire.js';
import { scrubHandlers } from './scrub/grpc.js';
import type { PgScrubber } from './scrub/pg-scrub.js';
import type { WritePiece } from './store/index.js';
import { guardHandlers, ticketOfCall } from './ticket-gate.js';
import type { TicketGuard } from './tickets.js';

function writeChunk(
  core: OssCore,
  tickets?: TicketGuard,
): grpc.handleClientStreamingCall<WriteChunkRequest__Output, WriteChunkResponse> {
  return (call, callback) => {
    const run = async (): Promise<WriteChunkResponse> => {
      const messages = call[Symbol.asyncIterator]() as AsyncIterator<WriteChunkRequest__Output>;
      const first = await messages.next();
      const header = first.done ? undefined : first.value.header;
      if (!header) throw new StripeError('REQ_INVALID', 'WriteChunk must start with a header message');
      tickets?.check(ticketOfCall(call), header.ref?.objectId ?? '', 'write', 'grpc', {
        address: addressOfPeer(call.getPeer()),
        op: 'WriteChunk',
      });
      async function* pieces(): AsyncGenerator<WritePiece> {
        for (;;) {
          const next = await messages.next();
          if (next.done) return;
          if (next.value.part !== 'data' || !next.value.data) {
            throw new StripeError('REQ_INVALID', 'WriteChunk: only data messages may follow the header');
          }
          yield { data: next.value.data };
        }
      }
      const h = header;
      return core.write(
        objectRefFromWire(h.ref),
        Number(h.offset),
        Number(h.length),
        h.crc32c,
        h.truncate,
        pieces(),
        tagOfCall(call),
        Number(h.version) > 0 ? { stamp: Number(h.version) } : {},
      );
    };
    run().then(
      (res) => callback(null, res),
      (err: unknown) => callback(toGrpcError(err)),
    );
  };
}

function readRange(
  core: OssCore,
): grpc.handleServerStreamingCall<ReadRangeRequest__Output, ReadRangeResponse> {
  return (call) => {
    const req = call.request;
    let objectSize = 0;
    let blockStamps: readonly number[] = [];
    let first = true;
    let parts: Buffer[] = [];
    let partsBytes = 0;
    let partsCrc = 0;
    const send = async (): Promise<void> => {
      if (partsBytes === 0 && !first) return;
      const data = parts.length === 1 ? parts[0]! : Buffer.concat(parts, partsBytes);
      const message: ReadRangeResponse = {
        data,
        crc32c: partsCrc,
        ...(first ? { objectSize, blockStamps: [...blockStamps] } : {}),
      };
      first = false;
      parts = [];
      partsBytes = 0;
      partsCrc = 0;
      if (!call.write(message)) await new Promise((resolve) => call.once('drain', resolve));
    };
    let tag: RequestTag | undefined;
    try {
      tag = tagOfCall(call);
    } catch (err) {
      call.emit('error', toGrpcError(err));
      return;
    }
    core
      .read(
        objectRefFromWire(req.ref),
        Number(req.offset),
        Number(req.length),
        (size, stamps) => {
          objectSize = size;
          blockStamps = stamps;
        },
        async (pieces) => {
          for (const piece of pieces) {
            partsCrc = partsBytes === 0 ? piece.crc : crc32cCombine(partsCrc, piece.crc, piece.data.length);
            parts.push(piece.data);
            partsBytes += piece.data.length;
            if (partsBytes >= LIMITS.streamPieceBytes) await send();
          }
        },
        { tag },
      )
      .then(async () => {
        await send();
        call.end();
      })
      .catch((err: unknown) => call.emit('error', toGrpcError(err)));
  };
}

/** With `tickets`, every call's data-path ticket is checked first (oss/ticket-gate.ts). */
export function ossServiceHandlers(
  core: OssCore,
  recoverer?: Recoverer,
  pgScrubber?: PgScrubber,
  tickets?: TicketGuard,
): OssServiceHandlers {
  const unavailable = unary<unknown, never>(async () => {
    throw new StripeError('REQ_UNAVAILABLE', 'this OSS does not run deep scrub');
  });
  const handlers: OssServiceHandlers = {
    ...(pgScrubber ? scrubHandlers(core, pgScrubber) : { DigestObjects: unavailable, ScrubPg: unavailable }),
    RecoverPg: unary<RecoverPgRequest__Output, RecoverPgResponse>(async (req) => {
      if (!recoverer) throw new StripeError('REQ_UNAVAILABLE', 'this OSS does not run recovery');
      return recoverer.recoverPg(recoverRequestFromWire(req));
    }),
    MarkStale: unary<MarkStaleRequest__Output, MarkStaleResponse>(async (req) => {
      if (req.objectIds.length > MARK_STALE_IDS_MAX)
        throw new StripeError('REQ_TOO_LARGE', `MarkStale takes at most ${MARK_STALE_IDS_MAX} object ids`);
      const ost = core.handle(req.ostId).ost;
      // All or none: a bad id refuses the whole list.
      for (const id of req.objectIds) validateObjectId(id);
      ost.markStale(req.objectIds, core.monotonicMs());
      core.stalePgs.mark(req.ostId, req.stalePgs);
      return { marked: req.objectIds.length + req.stalePgs.length };
    }),
    WriteChunk: writeChunk(core, tickets),
    ReadRange: readRange(core),
    StatObject: unary<StatObjectRequest__Output, StatObjectResponse>(async (req) =>
      core.stat(objectRefFromWire(req.ref)),
    ),
    DeleteObject: unary<DeleteObjectRequest__Output, DeleteObjectResponse>(async (req) => ({
      existed: await core.delete(objectRefFromWire(req.ref)),
    })),
    Flush: unary<FlushRequest__Output, FlushResponse>(async (req, call) => {
      await core.flush(objectRefFromWire(req.ref), tagOfCall(call));
      return {};
    }),
    ListObjects: unary<ListObjectsRequest__Output, ListObjectsResponse>(async (req) => {
      if (req.limit > LIST_LIMIT_MAX) throw new StripeError('REQ_INVALID', `limit above ${LIST_LIMIT_MAX}`);
      const page = await core.list(
        req.ostId,
        req.poolId,
        req.pg,
        req.cursor,
        req.limit || LIST_LIMIT_DEFAULT,
      );
      return {
        objects: page.objects.map((o) => ({ objectId: o.objectId, size: o.size, version: o.version })),
        nextCursor: page.nextCursor,
      };
    }),
  };
  return tickets ? guardHandlers(handlers, tickets) : handlers;
}
