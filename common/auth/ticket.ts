// Data-path tickets: what the MDS hands a client at open (and create, stat)
// so that OSSs can authorize each object request without asking the MDS.
// A ticket names one file (its inode; every object of the file is named
// "<inode>.<index>" or "<inode>.0.c<chunk>") or every object ("*", the
// service scope of recovery, scrub and the destroy queue), the rights (r or
// rw), an expiry, the client session and identity it was issued to, and is
// MACed with a ticket key the MDS shares with the OSSs (rotated; the id
// says which). The OSS checks the MAC, the expiry, the object and the right.
// A ticket is a bearer token for its file until it expires: without TLS,
// one seen on the wire can be used by its finder for that long.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { StripeError } from '../errors.js';

export const TICKET_METADATA_KEY = 'stripefs-ticket';
const VERSION = 't1';
const MAC_BYTES = 16;
/** The scope of a service ticket: every object. */
export const SERVICE_SCOPE = '*';
/** The client id of a service ticket (the MDS's and OSSs' own calls, admins' tools). */
export const SERVICE_CLIENT_ID = 'service';
/**
 * The scope of an admin HTTP ticket (the dashboard's token): read-only requests to the MDS's admin
 * HTTP API; it names no object, so no OSS serves a byte for it.
 */
export const HTTP_SCOPE = '@http';

export interface TicketFields {
  keyId: number;
  /** An inode (as decimal text) or SERVICE_SCOPE. */
  scope: string;
  write: boolean;
  expiresMs: number;
  clientId: string;
  name: string;
}

export interface TicketKey {
  id: number;
  key: Buffer;
}

function macOf(key: Buffer, f: TicketFields): Buffer {
  return createHmac('sha256', key)
    .update(
      `${VERSION}\n${f.keyId}\n${f.scope}\n${f.write ? 'rw' : 'r'}\n${f.expiresMs}\n${f.clientId}\n${f.name}`,
    )
    .digest()
    .subarray(0, MAC_BYTES);
}

export function mintTicket(key: TicketKey, fields: Omit<TicketFields, 'keyId'>): string {
  const f = { ...fields, keyId: key.id };
  const mac = macOf(key.key, f).toString('base64url');
  return `${VERSION} ${f.keyId} ${f.scope} ${f.write ? 'rw' : 'r'} ${f.expiresMs} ${f.clientId} ${f.name} ${mac}`;
}

/** The inode an object id belongs to ("12.3", "12.0.c4" -> 12); undefined for other names. */
export function inodeOfObjectId(objectId: string): string | undefined {
  const match = /^([1-9][0-9]{0,15})\./.exec(objectId);
  return match ? match[1] : undefined;
}

/** Parses a ticket's text; anything malformed is TICKET_INVALID. */
export function parseTicket(text: string): TicketFields & { mac: Buffer } {
  const parts = text.split(' ');
  const [version, keyIdText, scope, rights, expiresText, clientId, name, macText] = parts;
  const keyId = Number(keyIdText);
  const expiresMs = Number(expiresText);
  const mac = Buffer.from(macText ?? '', 'base64url');
  if (
    parts.length !== 8 ||
    version !== VERSION ||
    !Number.isSafeInteger(keyId) ||
    !scope ||
    (rights !== 'r' && rights !== 'rw') ||
    !Number.isSafeInteger(expiresMs) ||
    !clientId ||
    !name ||
    mac.length !== MAC_BYTES
  )
    throw new StripeError('TICKET_INVALID', 'malformed data-path ticket');
  return { keyId, scope, write: rights === 'rw', expiresMs, clientId, name, mac };
}

/** What a request does to its object, for the ticket's right. */
export type ObjectAccess = 'read' | 'write';

/**
 * Checks `text` for an access to `objectId` (undefined: a call that names no one object, which
 * only a service ticket may make). Returns the ticket's fields; throws the coded refusal.
 */
export function checkTicket(
  text: string | undefined,
  keys: ReadonlyMap<number, Buffer>,
  objectId: string | undefined,
  access: ObjectAccess,
  nowMs: number,
  isRevoked: (clientId: string) => boolean = () => false,
  /** The one scope accepted besides an object's file (default: the service scope). */
  wildScope: string = SERVICE_SCOPE,
): TicketFields {
  if (text === undefined)
    throw new StripeError(
      'TICKET_REQUIRED',
      'the request carries no data-path ticket: open the file at the MDS first',
    );
  const ticket = parseTicket(text);
  const key = keys.get(ticket.keyId);
  if (!key || !timingSafeEqual(macOf(key, ticket), ticket.mac))
    throw new StripeError('TICKET_INVALID', `the ticket's signature does not verify (key ${ticket.keyId})`, {
      identity: ticket.name,
    });
  if (isRevoked(ticket.clientId))
    throw new StripeError(
      'TICKET_REVOKED',
      `client ${ticket.clientId} of ${ticket.name} was evicted (or its key rotated or removed)`,
      { identity: ticket.name },
    );
  if (nowMs > ticket.expiresMs)
    throw new StripeError('TICKET_EXPIRED', `the ticket expired ${nowMs - ticket.expiresMs} ms ago`, {
      identity: ticket.name,
    });
  if (ticket.scope !== wildScope && (objectId === undefined || inodeOfObjectId(objectId) !== ticket.scope))
    throw new StripeError(
      'TICKET_WRONG_OBJECT',
      `the ticket is for the objects of inode ${ticket.scope}, not ${objectId ?? 'this call'}`,
      { identity: ticket.name, objectId },
    );
  if (access === 'write' && !ticket.write)
    throw new StripeError('TICKET_READ_ONLY', `a read ticket cannot write ${objectId ?? ''}`, {
      identity: ticket.name,
      objectId,
    });
  return ticket;
}

/** Checks an admin HTTP ticket (HTTP_SCOPE): MAC, revocation, expiry, scope; throws the coded refusal. */
export function checkHttpTicket(
  text: string,
  keys: ReadonlyMap<number, Buffer>,
  nowMs: number,
  isRevoked: (clientId: string) => boolean,
): TicketFields {
  return checkTicket(text, keys, undefined, 'read', nowMs, isRevoked, HTTP_SCOPE);
}
