// The identity administration calls (stripefs auth add|ls|get|caps|rotate|rm),
// admin-only by the gate. A change is on disk before it is answered and in
// effect for the next call: no restart.

import type { Session, SessionTable } from '../../common/auth/sessions.js';
import { StripeError } from '../../common/index.js';
import type { AuthClient, AuthIdentity } from '../../proto/index.js';
import type { IdentityStore, KnownIdentity } from './identities.js';

export function identityToWire(identity: KnownIdentity): AuthIdentity {
  const { name, caps, admin, allow, createdMs, rotatedMs, service } = identity.record;
  return { name, caps, admin, allow, createdMs, rotatedMs, service: service === true };
}

type Named = { name: string };

export function clientToWire(session: Session): AuthClient {
  return {
    id: session.clientId,
    identity: session.name,
    address: session.address ?? '',
    firstMs: session.firstMs,
    lastMs: session.lastMs,
    calls: session.calls,
    evicted: session.evicted,
  };
}

/**
 * `revoke` makes OSSs refuse a client session's data-path tickets: called for an evicted session
 * and for every session of an identity whose key is rotated or removed.
 */
export function authOps(
  store: IdentityStore,
  sessions: SessionTable | undefined,
  revoke: (clientId: string) => void = () => undefined,
) {
  const revokeIdentity = (name: string): void => {
    for (const session of sessions?.list() ?? []) if (session.name === name) revoke(session.clientId);
    sessions?.dropIdentity(name);
  };
  return {
    clients: async () => ({
      clients: (sessions?.list() ?? []).sort((a, b) => a.firstMs - b.firstMs).map(clientToWire),
    }),
    evict: async (r: { id: string }) => {
      const session = sessions?.evict(r.id);
      if (!session) throw new StripeError('AUTH_CLIENT_NOT_FOUND', `no client session ${r.id}`, { id: r.id });
      revoke(session.clientId);
      return { client: clientToWire(session) };
    },
    add: async (
      r: Named & { storedKey: Buffer; caps: string; admin: boolean; allow: string[]; service: boolean },
    ) => ({
      identity: identityToWire(await store.add(r)),
    }),
    list: async () => ({ identities: store.list().map(identityToWire) }),
    get: async (r: Named) => ({ identity: identityToWire(store.must(r.name)) }),
    setCaps: async (r: Named & { caps: string; admin: boolean; allow: string[]; service: boolean }) => ({
      identity: identityToWire(await store.setCaps(r.name, r.caps, r.admin, r.allow, r.service)),
    }),
    rotate: async (r: Named & { storedKey: Buffer }) => {
      const identity = await store.rotate(r.name, r.storedKey);
      revokeIdentity(r.name);
      return { identity: identityToWire(identity) };
    },
    remove: async (r: Named) => {
      await store.remove(r.name);
      revokeIdentity(r.name);
      return {};
    },
  };
}
