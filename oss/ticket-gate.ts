// Which ticket each OssService call needs, checked before its handler runs:
// object calls a ticket for the object's file with the right they use (read,
// write), calls that name no one object (listings, recovery, scrub, stale
// marks) a service ticket. WriteChunk names its object in its first message,
// so its handler checks it there (grpc-service.ts). With no keys from the MDS
// (auth off) the guard passes everything.
import type * as grpc from '@grpc/grpc-js';
import { addressOfPeer } from '../common/auth/cidr.js';
import { type ObjectAccess, TICKET_METADATA_KEY } from '../common/auth/ticket.js';
import { toGrpcError } from '../common/grpc.js';
import type { OssServiceHandlers } from '../proto/gen/stripefs/v1/OssService.js';
import type { TicketGuard } from './tickets.js';

type Method = Exclude<keyof OssServiceHandlers, number>;
type Rule = { kind: 'object'; access: ObjectAccess } | { kind: 'service' } | { kind: 'in-handler' };

const service: Rule = { kind: 'service' };
const RULES = {
  WriteChunk: { kind: 'in-handler' },
  ReadRange: { kind: 'object', access: 'read' },
  StatObject: { kind: 'object', access: 'read' },
  DeleteObject: { kind: 'object', access: 'write' },
  Flush: { kind: 'object', access: 'write' },
  ListObjects: service,
  RecoverPg: service,
  DigestObjects: service,
  ScrubPg: service,
  MarkStale: service,
} satisfies Record<Method, Rule>;

/** The ticket a call carries in its metadata (undefined: none). */
export function ticketOfCall(call: { metadata: grpc.Metadata }): string | undefined {
  const value = call.metadata.get(TICKET_METADATA_KEY)[0];
  return typeof value === 'string' ? value : undefined;
}

type AnyCall = {
  metadata: grpc.Metadata;
  request?: { ref?: { objectId?: string } | null };
  getPeer(): string;
};
type AnyHandler = (
  call: AnyCall & { emit(event: 'error', err: unknown): boolean },
  callback?: (err: unknown) => void,
) => void;

/** `handlers` with every call's ticket checked first; a refusal is answered with its code. */
export function guardHandlers(handlers: OssServiceHandlers, guard: TicketGuard): OssServiceHandlers {
  const out: Record<string, unknown> = { ...handlers };
  for (const [method, rule] of Object.entries(RULES) as [Method, Rule][]) {
    if (rule.kind === 'in-handler') continue;
    const inner = handlers[method] as unknown as AnyHandler;
    const wrapped: AnyHandler = (call, callback) => {
      try {
        const objectId = rule.kind === 'object' ? (call.request?.ref?.objectId ?? '') : undefined;
        guard.check(ticketOfCall(call), objectId, rule.kind === 'object' ? rule.access : 'write', 'grpc', {
          address: addressOfPeer(call.getPeer()),
          op: method,
        });
      } catch (err) {
        if (callback) callback(toGrpcError(err));
        else call.emit('error', toGrpcError(err));
        return;
      }
      inner(call, callback);
    };
    out[method] = wrapped;
  }
  return out as unknown as OssServiceHandlers;
}
