// Authentication of every MDS call: the signed metadata (common/auth/proof.ts),
// checked by the common verifier (common/auth/verifier.ts) against the
// identities the MDS keeps. The verdict is a Principal; each refusal is a
// coded error. The admin HTTP API checks the same signatures in its
// Authorization header (mds/auth/http.ts).
import type * as grpc from '@grpc/grpc-js';
import { addressOfPeer } from '../../common/auth/cidr.js';
import { AUTH_METADATA_KEY } from '../../common/auth/proof.js';
import type { Session, SessionTable } from '../../common/auth/sessions.js';
import { SignatureVerifier } from '../../common/auth/verifier.js';
import type { Clock } from '../../common/index.js';
import type { IdentityStore, KnownIdentity } from './identities.js';

export interface Principal {
  readonly identity: KnownIdentity;
  readonly session: Session;
  readonly address: string | undefined;
}

export class AuthGuard {
  private readonly verifier: SignatureVerifier<KnownIdentity>;

  constructor(
    readonly identities: IdentityStore,
    clock: Clock,
    readonly windowMs: number,
  ) {
    this.verifier = new SignatureVerifier(
      (name) => identities.get(name),
      () => clock.nowMs(),
      windowMs,
    );
  }

  get sessions(): SessionTable {
    return this.verifier.sessions;
  }

  authenticate(metadata: grpc.Metadata, method: string, peer: string): Principal {
    const value = metadata.get(AUTH_METADATA_KEY)[0];
    return this.verify(typeof value === 'string' ? value : undefined, method, addressOfPeer(peer));
  }

  /** A signed call's text for `method` from `address` (the admin HTTP API's header). */
  verify(value: string | undefined, method: string, address: string | undefined): Principal {
    const { identity, session } = this.verifier.verify(value, method, address);
    return { identity, session, address };
  }
}
