// Verifies signed calls (common/auth/proof.ts) wherever they arrive: the
// MDS's gRPC calls and admin HTTP requests, and an OSS's admin HTTP requests
// (an OSS holds the stored keys of admin identities, from the MDS's heartbeat
// answers). The signature names an identity `lookup` knows and proves its
// key, carries a time inside the window and a sequence number its session
// has not used, its session is not evicted, and it comes from an address the
// identity's allow-list admits. Each refusal is a coded error (AUTH_REQUIRED,
// AUTH_INVALID, AUTH_EXPIRED, AUTH_EVICTED, AUTH_REPLAYED, AUTH_ADDRESS_DENIED).
import { StripeError } from '../errors.js';
import type { AllowList } from './cidr.js';
import { parseSignedCall, verifySignedCall } from './proof.js';
import { acceptSeq, type Session, SessionTable } from './sessions.js';

/** What the verifier needs of an identity. */
export interface VerifiableIdentity {
  readonly storedKey: Buffer;
  readonly allow: AllowList;
}

export interface Verified<T> {
  readonly name: string;
  readonly identity: T;
  readonly session: Session;
  readonly address: string | undefined;
}

export class SignatureVerifier<T extends VerifiableIdentity> {
  readonly sessions: SessionTable;

  constructor(
    private readonly lookup: (name: string) => T | undefined,
    private readonly nowMs: () => number,
    private readonly windowMs: number,
    /** Client sessions refused for good (evicted at the MDS, told to an OSS). */
    private readonly isRevoked: (clientId: string) => boolean = () => false,
  ) {
    // Twice the window: a client clock ahead by the whole window still signs inside it.
    this.sessions = new SessionTable(2 * windowMs);
  }

  /** `value` is the signed call's text (none: AUTH_REQUIRED); `method` what it must have signed. */
  verify(value: string | undefined, method: string, address: string | undefined): Verified<T> {
    if (value === undefined)
      throw new StripeError(
        'AUTH_REQUIRED',
        `${method} carries no signature: give the client a keyring (--keyring FILE, STRIPEFS_KEYRING, or ./data/admin.keyring)`,
      );
    const signed = parseSignedCall(value);
    const identity = this.lookup(signed.name);
    const named = { identity: signed.name };
    // An unknown name and a wrong key are one answer, so names cannot be probed.
    if (!identity || !verifySignedCall(signed, identity.storedKey, method))
      throw new StripeError(
        'AUTH_INVALID',
        `the key of ${signed.name} is not the one this server holds (wrong, rotated or removed)`,
        named,
      );
    const nowMs = this.nowMs();
    if (Math.abs(nowMs - signed.timeMs) > this.windowMs)
      throw new StripeError(
        'AUTH_EXPIRED',
        `the call was signed ${nowMs - signed.timeMs} ms from this server's clock (window ${this.windowMs} ms)`,
        named,
      );
    const session = this.sessions.touch(signed.name, signed.clientId, nowMs);
    if (!session) throw new StripeError('REQ_UNAVAILABLE', 'too many client sessions; retry later');
    if (session.evicted || this.isRevoked(signed.clientId)) {
      // Kept as long as the session is remembered, after the revocation's news has gone.
      session.evicted = true;
      session.denied += 1;
      throw new StripeError('AUTH_EVICTED', `client ${signed.clientId} of ${signed.name} was evicted`, named);
    }
    if (acceptSeq(session, signed.seq) === 'replayed')
      throw new StripeError(
        'AUTH_REPLAYED',
        `call ${signed.seq} of client ${signed.clientId} was seen before`,
        named,
      );
    session.address = address;
    session.calls += 1;
    if (!identity.allow.allows(address))
      throw new StripeError(
        'AUTH_ADDRESS_DENIED',
        `${signed.name} may not connect from ${address ?? 'an unknown address'}`,
        {
          ...named,
          address,
        },
      );
    return { name: signed.name, identity, session, address };
  }
}
