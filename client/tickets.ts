// The client's data-path tickets (common/auth/ticket.ts), one per file: taken
// from every file attribute the MDS answers with (client/mds-interceptor.ts
// reads them off Open, OpenMany, Create, CreateMany, Commit ...; a
// stat carries none), handed to each OSS request without a round trip, and
// renewed before they expire: a ticket in use past half its life is renewed
// in the background, together with every other one in use and due, in one
// GetTickets call for many files (one never sent since it was given is not
// renewed). A request refused for an expired or unverifiable ticket (a clock
// ahead of the MDS's, a key rotated away) gets a fresh one and is sent once
// more. A client that has never been given a ticket (the MDS runs without
// auth) asks for none and sends none.
import { inodeOfObjectId, parseTicket } from '../common/auth/ticket.js';
import { StripeError } from '../common/errors.js';
import { LIMITS } from '../common/limits.js';

/** Files whose tickets a client keeps; past it the least recently given is dropped (and asked for again when used). */
export const TICKETS_CACHED_MAX = 100_000;
/** Codes after which a request is sent once more with a ticket fresh from the MDS. */
const RENEW_AND_RETRY = new Set(['TICKET_EXPIRED', 'TICKET_INVALID', 'TICKET_REQUIRED']);

interface Entry {
  text: string;
  /** Local time at which it is renewed in the background (half its life, as seen here). */
  renewAtMs: number;
  /** Local time after which it is not sent but replaced first. */
  expiresMs: number;
  /** Sent with a request since it was given: only such tickets are renewed in the background. */
  used: boolean;
}

type Message = { attr?: { ticket?: string } | null; open?: Message | null; results?: Message[] };

export class TicketCache {
  private readonly byInode = new Map<number, Entry>();
  /** The inodes of the next GetTickets, and its answer kept. */
  private round: { inodes: Set<number>; done: Promise<void> } | undefined;
  /** Inodes whose renewal is asked for or under way. */
  private readonly pending = new Map<number, Promise<void>>();
  /** Set by the first ticket seen: until then (auth off) nothing is asked for. */
  private inUse = false;
  /** GetTickets calls made (renewals), for stats and tests. */
  renewCalls = 0;

  constructor(
    private readonly getTickets: (inodes: number[]) => Promise<string[]>,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** Keeps a ticket the MDS handed out ('' or malformed: ignored). */
  put(text: string | undefined): void {
    if (!text) return;
    let fields: ReturnType<typeof parseTicket>;
    try {
      fields = parseTicket(text);
    } catch {
      return; // not a ticket this client can read: requests go without, and the OSS says why
    }
    const inode = Number(fields.scope);
    if (!Number.isSafeInteger(inode)) return;
    this.inUse = true;
    const now = this.nowMs();
    const lifeMs = Math.max(0, fields.expiresMs - now);
    this.byInode.delete(inode);
    this.byInode.set(inode, { text, renewAtMs: now + lifeMs / 2, expiresMs: fields.expiresMs, used: false });
    if (this.byInode.size > TICKETS_CACHED_MAX) {
      const oldest = this.byInode.keys().next().value;
      if (oldest !== undefined) this.byInode.delete(oldest);
    }
  }

  /** Takes the tickets of an MDS answer (the attributes of single and batched calls). */
  harvest(message: unknown): void {
    const m = message as Message | null;
    if (!m || typeof m !== 'object') return;
    this.put(m.attr?.ticket);
    this.put(m.open?.attr?.ticket);
    if (Array.isArray(m.results)) for (const r of m.results) this.harvest(r);
  }

  /** The ticket for a request to `objectId` (undefined: none to send). */
  get(objectId: string): string | undefined | Promise<string | undefined> {
    if (!this.inUse) return undefined;
    const inode = Number(inodeOfObjectId(objectId));
    if (!Number.isSafeInteger(inode)) return undefined;
    const entry = this.byInode.get(inode);
    const now = this.nowMs();
    if (entry) entry.used = true;
    if (entry && now < entry.renewAtMs) return entry.text;
    if (entry && now < entry.expiresMs) {
      void this.renew(inode).catch(() => undefined); // the request goes with the current one meanwhile
      return entry.text;
    }
    return this.renew(inode).then(() => this.byInode.get(inode)?.text);
  }

  /** Runs a request; refused for its ticket, it runs once more with a fresh one. */
  async retrying<T>(objectId: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      const inode = Number(inodeOfObjectId(objectId));
      if (!(err instanceof StripeError) || !RENEW_AND_RETRY.has(err.code)) throw err;
      if (!Number.isSafeInteger(inode)) throw err;
      // An OSS that wants tickets before this client was given any: the MDS runs with auth after all.
      this.inUse = true;
      this.byInode.delete(inode);
      await this.renew(inode);
      return run();
    }
  }

  /**
   * Adds `inode` to the next GetTickets (made once the current burst of requests has asked), which
   * also renews every cached ticket past its renewal time; resolves when its answer is kept.
   */
  private renew(inode: number): Promise<void> {
    const pending = this.pending.get(inode);
    if (pending) return pending;
    if (!this.round) {
      const inodes = new Set<number>();
      const done = Promise.resolve().then(() => this.send(inodes));
      this.round = { inodes, done };
    }
    this.round.inodes.add(inode);
    this.pending.set(inode, this.round.done);
    return this.round.done;
  }

  private async send(inodes: Set<number>): Promise<void> {
    this.round = undefined;
    const now = this.nowMs();
    for (const [inode, entry] of this.byInode) {
      if (inodes.size >= LIMITS.namespaceBatchItemsMax) break;
      if (entry.used && now >= entry.renewAtMs && !this.pending.has(inode)) inodes.add(inode);
    }
    const list = [...inodes];
    try {
      for (let at = 0; at < list.length; at += LIMITS.namespaceBatchItemsMax) {
        this.renewCalls += 1;
        const tickets = await this.getTickets(list.slice(at, at + LIMITS.namespaceBatchItemsMax));
        for (const text of tickets) this.put(text);
      }
    } finally {
      for (const inode of list) this.pending.delete(inode);
    }
  }
}

/**
 * A service ticket for every object (admin identities: fsck, tools, tests that read OSTs
 * directly), kept fresh from the MDS in the background; none when the MDS runs without auth.
 */
export class ServiceTicket {
  private ticket: string | undefined;
  private renewAtMs = 0;
  private renewing: Promise<void> | undefined;

  constructor(
    private readonly fetch: () => Promise<string>,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** Asks the MDS now; an MDS without auth (REQ_INVALID) leaves no ticket to send. */
  refresh(): Promise<void> {
    this.renewing ??= this.fetch()
      .then(
        (ticket) => {
          const now = this.nowMs();
          this.ticket = ticket;
          this.renewAtMs = now + Math.max(0, parseTicket(ticket).expiresMs - now) / 2;
        },
        (err: unknown) => {
          if (!(err instanceof StripeError && err.code === 'REQ_INVALID')) throw err;
          this.ticket = undefined;
          this.renewAtMs = Number.POSITIVE_INFINITY;
        },
      )
      .finally(() => {
        this.renewing = undefined;
      });
    return this.renewing;
  }

  /** The current ticket; one past half its life is renewed in the background. */
  get(): string | undefined {
    if (this.nowMs() >= this.renewAtMs) void this.refresh().catch(() => undefined); // the current one is sent meanwhile
    return this.ticket;
  }
}
