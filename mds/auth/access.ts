// What each MDS call needs, and the gate that checks it before the operation
// runs: namespace calls need caps on their paths (a rename on both ends),
// Commit on its inode's current path, batches per item (an item outside the
// caps fails alone, as it would as a single call); cluster and auth
// administration need --admin; the map, statfs and bad-chunk reports need only
// a known identity. With auth off (mds.auth false) every call passes.
import type * as grpc from '@grpc/grpc-js';
import { type Access, checkCaps } from '../../common/auth/caps.js';
import type { TicketKey } from '../../common/auth/ticket.js';
import { LIMITS, StripeError } from '../../common/index.js';
import type { MdsServiceHandlers } from '../../proto/gen/stripefs/v1/MdsService.js';
import type { AdminKey } from '../../proto/index.js';
import type { Auditor } from '../audit/events.js';
import { KEYS } from '../keys.js';
import type { MutationScope, Namespace } from '../namespace.js';
import { type BackPointer, ROOT_INODE } from '../records.js';
import type { AuthGuard, Principal } from './guard.js';
import { type Rights, stampTickets, subjectsOf, type TicketSubject } from './stamp.js';
import type { TicketKeyRing } from './ticket-keys.js';

type Req = Record<string, unknown>;
type OpenItem = { inode?: unknown; path?: unknown; xattrName?: unknown };
export type AccessRule =
  | { kind: 'known' }
  | { kind: 'admin' }
  | { kind: 'service' }
  | { kind: 'items' }
  | { kind: 'inode' }
  | { kind: 'open' }
  | { kind: 'paths'; paths: (request: Req) => [unknown, Access][] };

const known: AccessRule = { kind: 'known' };
const admin: AccessRule = { kind: 'admin' };
/** An OSS's calls: a service identity (or an admin). */
const service: AccessRule = { kind: 'service' };
const items: AccessRule = { kind: 'items' };
const on = (access: Access): AccessRule => ({ kind: 'paths', paths: (r) => [[r.path, access]] });

export const ACCESS = {
  Mkdir: on('w'),
  Rmdir: on('w'),
  Create: on('w'),
  Open: { kind: 'open' },
  OpenMany: items,
  Stat: on('lookup'),
  StatMany: items,
  Readdir: on('r'),
  Rename: {
    kind: 'paths',
    paths: (r) => [
      [r.fromPath, 'w'],
      [r.toPath, 'w'],
    ],
  },
  Unlink: on('w'),
  Commit: { kind: 'inode' },
  CommitMany: items,
  SetLayout: on('w'),
  CreateMany: items,
  UnlinkMany: items,
  SetAttr: on('w'),
  GetXattr: on('r'),
  SetXattr: on('w'),
  ListXattrs: on('r'),
  RemoveXattr: on('w'),
  Symlink: on('w'),
  Readlink: on('r'),
  Statfs: known,
  GetMap: known,
  WatchMap: known,
  GetPgHolders: known,
  ReportBadChunk: known,
  RegisterOss: service,
  Heartbeat: service,
  AdminOst: admin,
  AuthAdd: admin,
  AuthList: admin,
  AuthGet: admin,
  AuthSetCaps: admin,
  AuthRotate: admin,
  AuthRemove: admin,
  ReadAudit: admin,
  ListClients: admin,
  EvictClient: admin,
  // Per inode, in the handler (the caps of each file's current path); service tickets need admin.
  GetTickets: known,
  AuthWhoami: known,
  ReportAudit: service,
} satisfies Record<Exclude<keyof MdsServiceHandlers, number>, AccessRule>;

export type MdsMethod = keyof typeof ACCESS;

/** Checks one path for a principal; throws AUTH_DENIED or AUTH_ADDRESS_DENIED. */
export function requirePath(who: Principal, path: unknown, access: Access): void {
  const text = typeof path === 'string' ? path : '';
  const verdict = checkCaps(who.identity.caps, text, access, who.address);
  if (verdict === 'ok') return;
  const what = access === 'lookup' ? 'look up' : access === 'r' ? 'read' : 'write';
  throw new StripeError(
    verdict,
    verdict === 'AUTH_DENIED'
      ? `${who.identity.record.name} may not ${what} ${text} (caps: ${who.identity.record.caps || 'none'})`
      : `${who.identity.record.name} may not ${what} ${text} from ${who.address ?? 'an unknown address'}`,
    { identity: who.identity.record.name, path: text },
  );
}

/** The current path of an inode, from its back pointers (for Commit, which names no path). */
async function pathOfInode(ns: Namespace, inode: number): Promise<string | undefined> {
  const names: string[] = [];
  let at = inode;
  for (let depth = 0; at !== ROOT_INODE; depth++) {
    if (depth > LIMITS.pathBytesMax) return undefined;
    const where = (await ns.db.get(KEYS.backPointer(at))) as BackPointer | undefined;
    if (!where) return undefined;
    names.unshift(where.name);
    at = where.parent;
  }
  return `/${names.join('/')}`;
}

export class Gate {
  constructor(
    readonly guard: AuthGuard | undefined,
    private readonly ns: Namespace,
    /** Where refusals and audited calls are written (none: no audit log). */
    readonly auditor?: Auditor,
    /** The keys that sign data-path tickets (none: auth is off and OSSs check no tickets). */
    readonly tickets?: TicketKeyRing,
  ) {}

  /**
   * What every RegisterOss and Heartbeat answer carries: the ticket keys and revoked sessions, and
   * the admin identities' stored keys (an OSS checks signed requests to its admin HTTP API).
   */
  forOss(): { ticketKeys?: TicketKey[]; revokedClients?: string[]; adminKeys?: AdminKey[] } {
    if (!this.guard || !this.tickets) return {};
    const adminKeys = this.guard.identities
      .list()
      .filter((identity) => identity.record.admin)
      .map((identity) => ({
        name: identity.record.name,
        storedKey: identity.storedKey,
        allow: identity.record.allow,
      }));
    return { ...this.tickets.forOss(), adminKeys };
  }

  /** Runs `start` with `scope` current in the namespace (Namespace.inScope). */
  inScope<T>(scope: MutationScope | undefined, start: () => T): T {
    return this.ns.inScope(scope, start);
  }

  /** Puts a data-path ticket on every file attribute of an answer (none when auth is off). */
  async stamp(who: Principal | undefined, method: MdsMethod, request: Req, response: unknown): Promise<void> {
    if (!who || !this.tickets) return;
    const subjects = subjectsOf(method, request, response);
    if (subjects.length > 0) await stampTickets(this.tickets, who, subjects, (s) => this.rightsOf(who, s));
  }

  /** rw when the caps allow writing the subject's path, r when reading, else none. */
  private async rightsOf(who: Principal, subject: TicketSubject): Promise<Rights> {
    const caps = who.identity.caps;
    // rw on / (the common case of a trusted client) needs no look-up.
    if (checkCaps(caps, '/', 'w', who.address) === 'ok') return 'rw';
    const path = subject.inode !== undefined ? await this.pathOfInodeOrNone(subject.inode) : subject.path;
    if (typeof path !== 'string') return undefined;
    if (checkCaps(caps, path, 'w', who.address) === 'ok') return 'rw';
    return checkCaps(caps, path, 'r', who.address) === 'ok' ? 'r' : undefined;
  }

  /**
   * GetTickets: a ticket per inode ('' for one the caller may not read or that is gone), or one
   * service ticket (admin only).
   */
  async ticketsFor(
    who: Principal | undefined,
    request: { inodes: number[]; service: boolean },
  ): Promise<string[]> {
    if (!who || !this.tickets)
      throw new StripeError('REQ_INVALID', 'this MDS runs without auth: the OSSs check no tickets');
    const name = who.identity.record.name;
    if (request.service) {
      if (!who.identity.record.admin)
        throw new StripeError('AUTH_DENIED', `a service ticket needs an admin identity; ${name} is not one`, {
          identity: name,
        });
      return [this.tickets.service(name)];
    }
    if (request.inodes.length > LIMITS.namespaceBatchItemsMax)
      throw new StripeError(
        'REQ_TOO_LARGE',
        `GetTickets takes at most ${LIMITS.namespaceBatchItemsMax} inodes`,
      );
    const tickets: string[] = [];
    for (const inode of request.inodes) {
      const number = Number(inode);
      // With rw on / any inode gets one (as a file being destroyed still may be read by such a client).
      const rights = await this.rightsOf(who, { attr: {}, inode: number });
      tickets.push(
        rights === undefined
          ? ''
          : this.tickets.mint({
              scope: String(number),
              write: rights === 'rw',
              clientId: who.session.clientId,
              name,
            }),
      );
    }
    return tickets;
  }

  /** Authenticates and authorizes one call; undefined when auth is off. */
  async admit(
    call: { metadata: grpc.Metadata; getPath(): string; getPeer(): string },
    method: MdsMethod,
    request: Req,
  ): Promise<Principal | undefined> {
    if (!this.guard) return undefined;
    const who = this.guard.authenticate(call.metadata, call.getPath(), call.getPeer());
    const rule: AccessRule = ACCESS[method];
    if (rule.kind === 'admin' && !who.identity.record.admin)
      throw new StripeError(
        'AUTH_DENIED',
        `${method} needs an admin identity; ${who.identity.record.name} is not one`,
        {
          identity: who.identity.record.name,
        },
      );
    if (rule.kind === 'service' && !who.identity.record.admin && !who.identity.record.service)
      throw new StripeError(
        'AUTH_DENIED',
        `${method} needs a service identity (an OSS's) or an admin; ${who.identity.record.name} is neither`,
        { identity: who.identity.record.name },
      );
    if (rule.kind === 'paths')
      for (const [path, access] of rule.paths(request)) requirePath(who, path, access);
    if (rule.kind === 'inode') await this.admitInode(who, request.inode, 'w');
    if (rule.kind === 'open') await this.admitOpen(who, request);
    return who;
  }

  /** The per-item check of OpenMany: each item by its inode when it names one, else its path. */
  openCheck(who: Principal | undefined): ((item: OpenItem) => Promise<void>) | undefined {
    return who
      ? (item) =>
          this.admitOpen(who, item).catch((err: unknown) => {
            const code = (err as { code?: string }).code ?? 'REQ_INTERNAL';
            this.auditor?.refused(
              who,
              undefined,
              'OpenMany',
              [String(item.inode ? `inode:${item.inode}` : item.path)],
              code,
            );
            throw err;
          })
      : undefined;
  }

  /** The per-item check of CommitMany: each commit on its inode's current path, as Commit. */
  commitCheck(who: Principal | undefined): ((item: { inode?: unknown }) => Promise<void>) | undefined {
    return who
      ? (item) =>
          this.admitInode(who, item.inode, 'w').catch((err: unknown) => {
            const code = (err as { code?: string }).code ?? 'REQ_INTERNAL';
            this.auditor?.refused(who, undefined, 'CommitMany', [`inode:${String(item.inode)}`], code);
            throw err;
          })
      : undefined;
  }

  /**
   * An open by inode is checked on the inode's current path, not on the path it also carries. One
   * that asks for an extended attribute reads it: read access, as GetXattr needs.
   */
  private async admitOpen(who: Principal, request: OpenItem): Promise<void> {
    const access: Access = request.xattrName ? 'r' : 'lookup';
    if (request.inode) await this.admitInode(who, request.inode, access);
    else requirePath(who, request.path, access);
  }

  /** mkdir -p's check of each folder it makes (the call's own record says why it failed). */
  makeCheck(who: Principal | undefined): ((path: string) => void) | undefined {
    return who ? (path) => requirePath(who, path, 'w') : undefined;
  }

  /** The per-item check of a batch: throws for an item the principal may not touch. */
  itemCheck(
    who: Principal | undefined,
    access: Access,
    method: MdsMethod,
  ): ((path: string) => void) | undefined {
    return who ? (path) => this.audited(who, method, path, () => requirePath(who, path, access)) : undefined;
  }

  /** Runs a per-item check; a refused item is audited (the batch's own record says OK). */
  private audited<T>(who: Principal, method: MdsMethod, path: unknown, check: () => T): T {
    try {
      return check();
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'REQ_INTERNAL';
      this.auditor?.refused(who, undefined, method, [String(path)], code);
      throw err;
    }
  }

  private async admitInode(who: Principal, inode: unknown, access: Access): Promise<void> {
    // rw on / (the common case of a trusted client) needs no look-up.
    if (checkCaps(who.identity.caps, '/', 'w', who.address) === 'ok') return;
    const path = typeof inode === 'number' ? await this.pathOfInodeOrNone(inode) : undefined;
    // An inode that does not exist is the operation's own NS_NOT_FOUND.
    if (path !== undefined) requirePath(who, path, access);
  }

  private pathOfInodeOrNone(inode: number): Promise<string | undefined> {
    return Number.isSafeInteger(inode) && inode >= 1
      ? pathOfInode(this.ns, inode)
      : Promise.resolve(undefined);
  }
}
