// Auth at MDS start: the identities from the database and, on a database that
// has none, the first admin from the keyring auth.keyring names (or
// <mds.dataDir>/admin.keyring), made with a new secret when the file is missing;
// the OSSs' service identity from auth.ossKeyring when it names one; and the
// ring of keys that sign data-path tickets.
import { join } from 'node:path';
import type * as grpc from '@grpc/grpc-js';
import { ensureKeyring, OSS_SERVICE_NAME } from '../../common/auth/keyring.js';
import { storedKeyOf } from '../../common/auth/proof.js';
import { cachedTicket, ticketOptions } from '../../common/auth/signing.js';
import type { Clock, Config, Logger } from '../../common/index.js';
import { Auditor } from '../audit/events.js';
import { AuditLog } from '../audit/log.js';
import type { GroupCommitter } from '../commit.js';
import type { MdsDb } from '../db.js';
import { AuthGuard } from './guard.js';
import { IdentityStore } from './identities.js';
import { TicketKeyRing } from './ticket-keys.js';

/** Heartbeats a new ticket key is handed to OSSs before it signs (each OSS holds it by then). */
const KEY_SETTLE_HEARTBEATS = 3;

/** The first admin's name when its keyring file is made here. */
export const BOOTSTRAP_ADMIN_NAME = 'admin';

export async function openAuth(
  config: Config,
  db: MdsDb,
  committer: GroupCommitter,
  clock: Clock,
  logger: Logger,
): Promise<{ guard: AuthGuard; tickets: TicketKeyRing } | undefined> {
  if (!config['mds.auth']) {
    logger.warn('auth is off (mds.auth false): anyone who reaches the MDS may do anything');
    return undefined;
  }
  const store = new IdentityStore(db, committer, clock);
  await store.init();
  if (store.size === 0) {
    const path = config['auth.keyring'] || join(config['mds.dataDir'], 'admin.keyring');
    const { identity, created } = ensureKeyring(path, BOOTSTRAP_ADMIN_NAME);
    await store.bootstrap(identity);
    logger.info({ keyring: path, identity: identity.name, created }, 'first admin identity from its keyring');
  }
  await serviceFromKeyring(store, config['auth.ossKeyring'], logger);
  const tickets = new TicketKeyRing(
    db,
    committer,
    clock,
    config['mds.ticketTtlMs'],
    config['mds.ticketKeyRotateMs'],
    KEY_SETTLE_HEARTBEATS * config['mds.heartbeatIntervalMs'],
    2 * config['mds.authWindowMs'],
  );
  await tickets.init();
  return { guard: new AuthGuard(store, clock, config['mds.authWindowMs']), tickets };
}

/**
 * The OSSs' service identity from the keyring `path` names (made when missing): added when no
 * identity has its name; one that exists is left as it is (rotate or change it with the CLI).
 */
async function serviceFromKeyring(store: IdentityStore, path: string, logger: Logger): Promise<void> {
  if (path === '') return;
  const { identity, created } = ensureKeyring(path, OSS_SERVICE_NAME);
  const existing = store.get(identity.name);
  if (existing) {
    if (!existing.record.service || !existing.storedKey.equals(storedKeyOf(identity.secret)))
      logger.warn(
        { keyring: path, identity: identity.name },
        'auth.ossKeyring names an identity that exists with another key or without the service role: left as it is',
      );
    return;
  }
  await store.add({
    name: identity.name,
    storedKey: storedKeyOf(identity.secret),
    caps: '',
    admin: false,
    allow: [],
    service: true,
  });
  logger.info(
    { keyring: path, identity: identity.name, created },
    'service identity for the OSSs from its keyring',
  );
}

/** The audit log in <mds.dataDir>/audit (kept with auth on or off). */
export function openAudit(config: Config, clock: Clock): Auditor {
  const log = new AuditLog({
    dir: join(config['mds.dataDir'], 'audit'),
    fileBytesMax: config['mds.auditFileBytesMax'],
    files: config['mds.auditFiles'],
    deniedPerSec: config['mds.auditDeniedPerSec'],
    nowMs: () => clock.nowMs(),
  });
  return new Auditor(log, config['mds.auditFiles']);
}

/** How often, at most, the MDS checks whether its ticket key is due for rotation. */
const TICKET_ROTATE_CHECK_MS_MAX = 10_000;

/**
 * The MDS's side of data-path tickets: options for its OSS channels (its service ticket on every
 * call, for recovery, scrub and the destroy queue) and the timer that rotates the key. With auth
 * off, channels carry no ticket and nothing rotates.
 */
export function ticketing(
  tickets: TicketKeyRing | undefined,
  config: Config,
  clock: Clock,
  onFatal: (err: unknown) => void,
): { channelOptions: grpc.ClientOptions; start(): void; stop(): void } {
  const serviceTicket = cachedTicket(
    () => tickets?.service('mds'),
    config['mds.ticketTtlMs'],
    () => clock.nowMs(),
  );
  let timer: NodeJS.Timeout | undefined;
  return {
    channelOptions: ticketOptions(serviceTicket),
    // A new key reaches the OSSs with the next heartbeat answers.
    start() {
      if (!tickets) return;
      const everyMs = Math.min(TICKET_ROTATE_CHECK_MS_MAX, Math.ceil(tickets.rotateMs / 4));
      timer = setInterval(() => void tickets.rotateIfDue().catch(onFatal), everyMs);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
