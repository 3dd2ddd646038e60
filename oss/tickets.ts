// The OSS's check of data-path tickets (common/auth/ticket.ts). The keys,
// the revoked client sessions and the admin identities' stored keys (for the
// admin HTTP API, oss/http-auth.ts) come from the MDS at registration and with
// every heartbeat; an OSS that was given no keys (its MDS runs without auth)
// checks nothing. The keys are kept in <oss.dataDir>/ticket-keys.json (0600)
// so a restarted OSS checks tickets from its first request, before the MDS
// answers again. Its own calls to other OSSs (recovery copies, scrub) carry a
// service ticket it mints with the newest key.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { type AllowList, allowListOf } from '../common/auth/cidr.js';
import {
  checkTicket,
  mintTicket,
  type ObjectAccess,
  SERVICE_CLIENT_ID,
  SERVICE_SCOPE,
  type TicketKey,
} from '../common/auth/ticket.js';
import { StripeError } from '../common/errors.js';

/** How long a service ticket this OSS mints for its own calls is valid. */
export const SERVICE_TICKET_TTL_MS = 60_000;

/** How long this OSS holds a new key before its service tickets use it (other OSSs learn it meanwhile). */
export const SERVICE_KEY_SETTLE_MS = 5_000;

/** Which door a request came through, for the refusal counters. */
export type TicketDoor = 'grpc' | 'bulk';

/** Who sent a refused request and what it asked, for the audit log. */
export interface RequestContext {
  address?: string | undefined;
  op?: string;
}

export interface TicketState {
  ticketKeys: readonly { id: number; key: Buffer | Uint8Array }[];
  revokedClients: readonly string[];
  adminKeys?: readonly { name: string; storedKey: Buffer | Uint8Array; allow: readonly string[] }[];
}

/** An admin identity as the OSS knows it: what verifies its signed HTTP requests. */
export interface AdminKeyEntry {
  storedKey: Buffer;
  allow: AllowList;
}

export class TicketGuard {
  private keys = new Map<number, Buffer>();
  private revoked = new Set<string>();
  private admins = new Map<string, AdminKeyEntry>();
  /** When this OSS first held each key (0: loaded from its file). */
  private readonly seenMs = new Map<number, number>();
  /** Called on every refusal (metrics and the log). */
  onRefused: (code: string, door: TicketDoor, error: StripeError, context: RequestContext) => void = () =>
    undefined;

  constructor(
    /** Where the keys are kept between runs (none: memory only). */
    private readonly file: string | undefined,
    private readonly nowMs: () => number = Date.now,
    private readonly name = 'oss',
  ) {
    if (file && existsSync(file)) {
      const stored = JSON.parse(readFileSync(file, 'utf8')) as { id: number; key: string }[];
      this.keys = new Map(stored.map((k) => [k.id, Buffer.from(k.key, 'base64')]));
      for (const id of this.keys.keys()) this.seenMs.set(id, 0);
    }
  }

  /** The keys and revocations of a RegisterOss or Heartbeat answer. */
  update(state: TicketState): void {
    const keys = new Map(state.ticketKeys.map((k) => [k.id, Buffer.from(k.key)]));
    const changed =
      keys.size !== this.keys.size || [...keys].some(([id, key]) => !this.keys.get(id)?.equals(key));
    this.keys = keys;
    for (const id of keys.keys()) if (!this.seenMs.has(id)) this.seenMs.set(id, this.nowMs());
    for (const id of this.seenMs.keys()) if (!keys.has(id)) this.seenMs.delete(id);
    this.revoked = new Set(state.revokedClients);
    this.admins = new Map(
      (state.adminKeys ?? []).map((a) => [
        a.name,
        { storedKey: Buffer.from(a.storedKey), allow: allowListOf([...a.allow]) },
      ]),
    );
    if (changed && this.file) {
      const stored = [...keys].map(([id, key]) => ({ id, key: key.toString('base64') }));
      writeFileSync(`${this.file}.tmp`, JSON.stringify(stored), { mode: 0o600 });
      renameSync(`${this.file}.tmp`, this.file);
    }
  }

  get enforcing(): boolean {
    return this.keys.size > 0;
  }

  /** An admin identity's key, for the admin HTTP API (undefined: not an admin, or not told yet). */
  adminKey(name: string): AdminKeyEntry | undefined {
    return this.admins.get(name);
  }

  isRevoked(clientId: string): boolean {
    return this.revoked.has(clientId);
  }

  /** Throws the coded refusal unless `ticket` allows `access` to `objectId` (undefined: service only). */
  check(
    ticket: string | undefined,
    objectId: string | undefined,
    access: ObjectAccess,
    door: TicketDoor,
    context: RequestContext = {},
  ): void {
    if (this.keys.size === 0) return;
    try {
      checkTicket(ticket, this.keys, objectId, access, this.nowMs(), (id) => this.revoked.has(id));
    } catch (err) {
      const error =
        err instanceof StripeError ? err : new StripeError('REQ_INTERNAL', (err as Error).message);
      this.onRefused(error.code, door, error, context);
      throw error;
    }
  }

  /** A service ticket for this OSS's own calls; undefined when it checks no tickets. */
  serviceTicket(): string | undefined {
    const nowMs = this.nowMs();
    let newest: TicketKey | undefined;
    let settled: TicketKey | undefined;
    for (const [id, key] of this.keys) {
      if (!newest || id > newest.id) newest = { id, key };
      const held = nowMs - (this.seenMs.get(id) ?? 0) >= SERVICE_KEY_SETTLE_MS;
      if (held && (!settled || id > settled.id)) settled = { id, key };
    }
    if (!newest) return undefined;
    newest = settled ?? newest;
    return mintTicket(newest, {
      scope: SERVICE_SCOPE,
      write: true,
      expiresMs: nowMs + SERVICE_TICKET_TTL_MS,
      clientId: SERVICE_CLIENT_ID,
      name: this.name,
    });
  }
}
