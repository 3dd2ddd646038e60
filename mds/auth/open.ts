// Auth at MDS start: the identities from the database and, on a database that
// has none, the first admin from the keyring auth.keyring names (or
// <mds.dataDir>/admin.keyring), made with a new secret when the file is missing.
import { join } from 'node:path';
import { ensureKeyring } from '../../common/auth/keyring.js';
import type { Clock, Config, Logger } from '../../common/index.js';
import { Auditor } from '../audit/events.js';
import { AuditLog } from '../audit/log.js';
import type { GroupCommitter } from '../commit.js';
import type { MdsDb } from '../db.js';
import { AuthGuard } from './guard.js';
import { IdentityStore } from './identities.js';

/** The first admin's name when its keyring file is made here. */
export const BOOTSTRAP_ADMIN_NAME = 'admin';

export async function openAuth(
  config: Config,
  db: MdsDb,
  committer: GroupCommitter,
  clock: Clock,
  logger: Logger,
): Promise<AuthGuard | undefined> {
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
  return new AuthGuard(store, clock, config['mds.authWindowMs']);
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
