// Counts every tagged call to the MDS's gRPC service for job statistics and
// the table of clients, by wrapping the service's handlers: the handlers stay
// as they are, and calls without a tag (OSSs, tools) pass untouched. A unary
// call is counted when it answers (one operation per item of a batch); a map
// watch marks its client connected while it lasts. A malformed tag is refused
// with REQ_INVALID before the handler runs.
import type * as grpc from '@grpc/grpc-js';
import { addressOfPeer } from '../../common/auth/cidr.js';
import { toGrpcError } from '../../common/grpc.js';
import type { RequestTag } from '../../common/jobs/job-id.js';
import { tagOfCall } from '../../common/jobs/tag-interceptor.js';
import type { JobStats } from './job-stats.js';

type AnyUnary = grpc.handleUnaryCall<unknown, unknown>;
type AnyServerStream = grpc.handleServerStreamingCall<unknown, unknown>;

/** Operations one request stands for: a batch's items, else one. */
function itemsOf(request: unknown): number {
  const r = request as { items?: unknown; paths?: unknown };
  if (Array.isArray(r?.items)) return Math.max(1, r.items.length);
  if (Array.isArray(r?.paths)) return Math.max(1, r.paths.length);
  return 1;
}

/**
 * The client's host (grpc-js may prefix the family): not the port, which is that of whichever of
 * its connections called (its gRPC channel or the framed path), so the table would flip between them.
 */
function addressOf(call: { getPeer(): string }): string {
  const peer = call.getPeer().replace(/^ipv[46]:/, '');
  return addressOfPeer(peer) ?? peer;
}

function observeUnary(name: string, handler: AnyUnary, jobs: JobStats): AnyUnary {
  return (call, callback) => {
    let tag: RequestTag | undefined;
    try {
      tag = tagOfCall(call);
    } catch (err) {
      callback(toGrpcError(err));
      return;
    }
    if (!tag) return handler(call, callback);
    const started = performance.now();
    const counted = tag;
    handler(call, (err, value, trailer, flags) => {
      jobs.recordMds(
        counted,
        addressOf(call),
        name,
        itemsOf(call.request),
        performance.now() - started,
        !err,
      );
      callback(err, value, trailer, flags);
    });
  };
}

function observeWatch(handler: AnyServerStream, jobs: JobStats): AnyServerStream {
  return (call) => {
    let tag: RequestTag | undefined;
    try {
      tag = tagOfCall(call);
    } catch (err) {
      call.emit('error', toGrpcError(err));
      return;
    }
    if (tag) {
      const close = jobs.watch(tag, addressOf(call));
      call.on('cancelled', close);
      call.on('close', close);
      call.on('error', close);
      call.on('finish', close);
    }
    handler(call);
  };
}

/** The service's handlers, each counted for job statistics (WatchMap: connected clients). */
export function observeCalls<H extends object>(handlers: H, jobs: JobStats): H {
  const observed: Record<string, unknown> = {};
  for (const [name, handler] of Object.entries(handlers)) {
    if (typeof handler !== 'function') observed[name] = handler;
    else if (name === 'WatchMap') observed[name] = observeWatch(handler as AnyServerStream, jobs);
    else if (handler.length === 2) observed[name] = observeUnary(name, handler as AnyUnary, jobs);
    else observed[name] = handler;
  }
  return observed as H;
}
