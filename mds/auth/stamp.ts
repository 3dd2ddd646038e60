// Tickets in answers: every file attribute the MDS returns from Create, Open,
// OpenMany, CreateMany, Commit, CommitMany and SetAttr carries a data-path
// ticket for that file, rw when the caller's caps allow writing its path, r
// when they allow reading it, none otherwise (a lookup-only open). Files only:
// directories and symlinks have no objects. Stat and StatMany carry none: a
// stat reads no object, and a client that goes on to read or write the file
// without opening it (truncate) asks GetTickets (client/tickets.ts). Neither
// does an open of a file whose bytes all live on the MDS (data on the MDS):
// reading it touches no object, and a handle that writes past the part asks
// GetTickets then, as for a ticket it lost.
import type { Attr } from '../../proto/index.js';
import type { Principal } from './guard.js';
import type { TicketKeyRing } from './ticket-keys.js';

type Req = Record<string, unknown>;
type WithAttr = { attr?: Attr | null };
/** Where an attribute's rights come from: the path it was asked by, or its inode's current path. */
export type TicketSubject = { attr: Attr; path?: unknown; inode?: number };
export type Rights = 'rw' | 'r' | undefined;

const at = (list: unknown, i: number): Req => ((list as Req[] | undefined)?.[i] ?? {}) as Req;

/** The file attributes of an answer with what names them in the request. */
/** A file all of whose bytes the MDS keeps (its layout's part on the MDS holds its size). */
function wholeOnMds(attr: Attr): boolean {
  const domBytes = Number(attr.layout?.domBytes ?? 0);
  return domBytes > 0 && Number(attr.size ?? 0) <= domBytes;
}

export function subjectsOf(method: string, request: Req, response: unknown): TicketSubject[] {
  const res = response as WithAttr & { results?: (WithAttr & { open?: WithAttr | null })[] };
  const byInode = (attr: Attr): TicketSubject => ({ attr, inode: Number(attr.inode) });
  switch (method) {
    case 'Create':
    case 'SetAttr':
      return res.attr ? [{ attr: res.attr, path: request.path }] : [];
    case 'Open':
      if (!res.attr || wholeOnMds(res.attr)) return [];
      return request.inode ? [byInode(res.attr)] : [{ attr: res.attr, path: request.path }];
    case 'Commit':
      return res.attr ? [byInode(res.attr)] : [];
    case 'CommitMany':
      return (res.results ?? []).flatMap((r) => (r.attr ? [byInode(r.attr)] : []));
    case 'CreateMany':
      return (res.results ?? []).flatMap((r, i) =>
        r.attr ? [{ attr: r.attr, path: at(request.items, i).path }] : [],
      );
    case 'OpenMany':
      return (res.results ?? []).flatMap((r, i) => {
        const attr = r.open?.attr;
        if (!attr || wholeOnMds(attr)) return [];
        return at(request.items, i).inode ? [byInode(attr)] : [{ attr, path: at(request.items, i).path }];
      });
    default:
      return [];
  }
}

const isFile = (attr: Attr): boolean =>
  attr.type === undefined || attr.type === 'FILE_TYPE_FILE' || attr.type === 'FILE_TYPE_UNSPECIFIED';

export async function stampTickets(
  tickets: TicketKeyRing,
  who: Principal,
  subjects: TicketSubject[],
  rightsOf: (subject: TicketSubject) => Promise<Rights>,
): Promise<void> {
  for (const subject of subjects) {
    if (!isFile(subject.attr)) continue;
    const rights = await rightsOf(subject);
    if (rights === undefined) {
      subject.attr.ticket = '';
      continue;
    }
    subject.attr.ticket = tickets.mint({
      scope: String(subject.attr.inode),
      write: rights === 'rw',
      clientId: who.session.clientId,
      name: who.identity.record.name,
    });
  }
}
