// The keys the MDS signs data-path tickets with, shared with every OSS (in
// RegisterOss and Heartbeat answers). A new key every mds.ticketKeyRotateMs;
// a new key signs only once it has been handed out for settleMs (a few
// heartbeats: every OSS holds it by then), and a retired key is still handed
// out, so its tickets verify, until the last ticket it signed has expired. Kept in the database (keys.ts: T/keys) so a
// restarted MDS does not invalidate the tickets clients hold.
// Also the client sessions whose tickets OSSs must refuse (evicted, or their
// identity rotated or removed): each until its last ticket has expired, in
// memory only (a restarted MDS forgets them: at most one ticket life of use).
import { randomBytes } from 'node:crypto';
import { mintTicket, SERVICE_CLIENT_ID, SERVICE_SCOPE, type TicketKey } from '../../common/auth/ticket.js';
import type { Clock } from '../../common/index.js';
import type { GroupCommitter } from '../commit.js';
import type { MdsDb } from '../db.js';
import { KEYS } from '../keys.js';

/** Revoked client sessions remembered at once; past it the oldest is forgotten (its tickets then live out their life). */
export const REVOKED_CLIENTS_MAX = 10_000;

interface StoredKey {
  id: number;
  key: string;
  createdMs: number;
}

export interface TicketGrant {
  scope: string;
  write: boolean;
  clientId: string;
  name: string;
}

export class TicketKeyRing {
  private keys: StoredKey[] = [];
  /** The keys decoded once (every answer with a file attribute mints a ticket). */
  private readonly decoded = new Map<number, Buffer>();
  /** client id -> when its last ticket expires (insertion order: oldest first). */
  private readonly revoked = new Map<string, number>();

  constructor(
    private readonly db: MdsDb,
    private readonly committer: GroupCommitter,
    private readonly clock: Clock,
    readonly ttlMs: number,
    readonly rotateMs: number,
    /** How long a new key is handed to OSSs before it signs. */
    private readonly settleMs: number,
    /**
     * How long a revoked session stays on the list sent to OSSs: its last ticket's life, and at
     * least as long as a session is remembered (an OSS's admin HTTP API refuses it meanwhile).
     */
    private readonly revokeMs: number = ttlMs,
  ) {}

  async init(): Promise<void> {
    const stored = (await this.db.get(KEYS.ticketKeys)) as { keys: StoredKey[] } | undefined;
    this.keys = stored?.keys ?? [];
    await this.rotateIfDue();
  }

  /** Makes a new key when the newest is older than the rotation period; drops keys no ticket needs. */
  async rotateIfDue(): Promise<void> {
    const nowMs = this.clock.nowMs();
    const newest = this.keys.at(-1);
    if (newest && nowMs - newest.createdMs < this.rotateMs) return;
    const next: StoredKey = {
      id: (newest?.id ?? 0) + 1,
      key: randomBytes(32).toString('base64'),
      createdMs: nowMs,
    };
    // A key stops signing when the next one has settled; its last ticket is valid ttl longer.
    const kept = this.keys.filter((_key, i) => {
      const retiredMs = (this.keys[i + 1]?.createdMs ?? nowMs) + this.settleMs + this.ttlMs;
      return retiredMs > nowMs;
    });
    const keys = [...kept, next];
    await this.committer.submit([{ type: 'put', key: KEYS.ticketKeys, value: { keys } }]);
    this.keys = keys;
  }

  /** Every key whose tickets may still be valid: what OSSs check with. */
  valid(): TicketKey[] {
    return this.keys.map((k) => ({ id: k.id, key: Buffer.from(k.key, 'base64') }));
  }

  /** The newest key every OSS has held for settleMs (the newest of all when none has). */
  private signingKey(nowMs: number): StoredKey {
    let key = this.keys.at(-1);
    for (const k of this.keys) if (nowMs - k.createdMs >= this.settleMs) key = k;
    if (!key) throw new Error('ticket key ring used before init()');
    return key;
  }

  mint(grant: TicketGrant, ttlMs = this.ttlMs): string {
    const nowMs = this.clock.nowMs();
    const key = this.signingKey(nowMs);
    let bytes = this.decoded.get(key.id);
    if (!bytes) {
      bytes = Buffer.from(key.key, 'base64');
      this.decoded.clear(); // at most the one key that signs now is kept
      this.decoded.set(key.id, bytes);
    }
    return mintTicket({ id: key.id, key: bytes }, { ...grant, expiresMs: nowMs + ttlMs });
  }

  /** A ticket for every object, for the MDS's own calls to OSSs and for admins' tools. */
  service(name: string): string {
    return this.mint({ scope: SERVICE_SCOPE, write: true, clientId: SERVICE_CLIENT_ID, name });
  }

  /** OSSs refuse this client's tickets from their next heartbeat until the last one has expired. */
  revoke(clientId: string): void {
    this.revoked.delete(clientId);
    this.revoked.set(clientId, this.clock.nowMs() + Math.max(this.ttlMs, this.revokeMs));
    for (const oldest of this.revoked.keys()) {
      if (this.revoked.size <= REVOKED_CLIENTS_MAX) break;
      this.revoked.delete(oldest);
    }
  }

  /** The keys by id, for checking a ticket here (the admin HTTP API's bearer tickets). */
  keysById(): Map<number, Buffer> {
    return new Map(this.valid().map((k) => [k.id, k.key]));
  }

  isRevoked(clientId: string): boolean {
    const untilMs = this.revoked.get(clientId);
    return untilMs !== undefined && untilMs > this.clock.nowMs();
  }

  /** The revoked client ids whose tickets may still be unexpired. */
  revokedNow(): string[] {
    const nowMs = this.clock.nowMs();
    for (const [id, untilMs] of this.revoked) if (untilMs <= nowMs) this.revoked.delete(id);
    return [...this.revoked.keys()];
  }

  /** What every RegisterOss and Heartbeat answer carries. */
  forOss(): { ticketKeys: TicketKey[]; revokedClients: string[] } {
    return { ticketKeys: this.valid(), revokedClients: this.revokedNow() };
  }
}
