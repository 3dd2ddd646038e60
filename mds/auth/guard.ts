// Authentication of every MDS call: the signed metadata (common/auth/proof.ts)
// names an identity this MDS knows, proves its key, carries a time inside the
// window and a sequence number its session has not used, and comes from an
// address the identity's allow-list admits. The verdict is a Principal; each
// refusal is a coded error (AUTH_REQUIRED, AUTH_INVALID, AUTH_EXPIRED,
// AUTH_REPLAYED, AUTH_ADDRESS_DENIED).
import type * as grpc from '@grpc/grpc-js';
import { addressOfPeer } from '../../common/auth/cidr.js';
import { AUTH_METADATA_KEY, parseSignedCall, verifySignedCall } from '../../common/auth/proof.js';
import { type Clock, StripeError } from '../../common/index.js';
import type { IdentityStore, KnownIdentity } from './identities.js';
import { acceptSeq, type Session, SessionTable } from './sessions.js';

export interface Principal {
  readonly identity: KnownIdentity;
  readonly session: Session;
  readonly address: string | undefined;
}

export class AuthGuard {
  readonly sessions: SessionTable;

  constructor(
    readonly identities: IdentityStore,
    private readonly clock: Clock,
    private readonly windowMs: number,
  ) {
    // Twice the window: a client clock ahead by the whole window still signs inside it.
    this.sessions = new SessionTable(2 * windowMs);
  }

  authenticate(metadata: grpc.Metadata, method: string, peer: string): Principal {
    const value = metadata.get(AUTH_METADATA_KEY)[0];
    if (typeof value !== 'string')
      throw new StripeError(
        'AUTH_REQUIRED',
        `${method} carries no signature: give the client a keyring (--keyring FILE, STRIPEFS_KEYRING, or ./data/admin.keyring)`,
      );
    const signed = parseSignedCall(value);
    const identity = this.identities.get(signed.name);
    // An unknown name and a wrong key are one answer, so names cannot be probed.
    if (!identity || !verifySignedCall(signed, identity.storedKey, method))
      throw new StripeError(
        'AUTH_INVALID',
        `the key of ${signed.name} is not the one this MDS holds (wrong, rotated or removed)`,
        {
          identity: signed.name,
        },
      );
    const nowMs = this.clock.nowMs();
    if (Math.abs(nowMs - signed.timeMs) > this.windowMs)
      throw new StripeError(
        'AUTH_EXPIRED',
        `the call was signed ${nowMs - signed.timeMs} ms from the MDS clock (window ${this.windowMs} ms)`,
        {
          identity: signed.name,
        },
      );
    const session = this.sessions.touch(signed.name, signed.clientId, nowMs);
    if (!session)
      throw new StripeError('REQ_UNAVAILABLE', 'the MDS holds too many client sessions; retry later');
    if (session.evicted) {
      session.denied += 1;
      throw new StripeError('AUTH_EVICTED', `client ${signed.clientId} of ${signed.name} was evicted`, {
        identity: signed.name,
      });
    }
    if (acceptSeq(session, signed.seq) === 'replayed')
      throw new StripeError(
        'AUTH_REPLAYED',
        `call ${signed.seq} of client ${signed.clientId} was seen before`,
        {
          identity: signed.name,
        },
      );
    const address = addressOfPeer(peer);
    session.address = address;
    session.calls += 1;
    if (!identity.allow.allows(address))
      throw new StripeError('AUTH_ADDRESS_DENIED', `${signed.name} may not connect from ${address ?? peer}`, {
        identity: signed.name,
        address,
      });
    return { identity, session, address };
  }
}
