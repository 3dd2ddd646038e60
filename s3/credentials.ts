// Who may call the gateway, and as whom it then acts. Access keys come from a
// CredentialStore: pairs from configuration (s3.accessKey/s3.secretKey and a
// credentials file), which act as the gateway's own identity; and stripefs
// identities (KeyringCredentials): access key NAME, secret s3SecretOf(its key),
// acting as NAME, so the MDS checks that identity's caps on every call and the
// OSSs its tickets (s3/actors.ts).
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  checkIdentityName,
  type Identity as Keyring,
  readKeyring,
  s3SecretOf,
} from '../common/auth/keyring.js';
import { StripeError } from '../common/errors.js';

export interface Identity {
  /** The name the gateway logs: the stripefs identity it acts as, or a configured pair's name. */
  name: string;
  accessKeyId: string;
  /** The stripefs identity to act as; undefined: the gateway's own (a configured pair). */
  actAs?: Keyring;
}

export interface Credential {
  secretKey: string;
  identity: Identity;
}

export interface CredentialStore {
  /** The secret of an access key and the identity it proves; undefined for an unknown key. */
  lookup(accessKeyId: string): Promise<Credential | undefined>;
}

/** Fixed pairs, each acting as the gateway's own identity. */
export class StaticCredentials implements CredentialStore {
  private readonly byKey = new Map<string, Credential>();

  constructor(pairs: { accessKeyId: string; secretKey: string; name?: string }[]) {
    for (const pair of pairs) {
      if (!/^[\w+=,.@-]{3,128}$/.test(pair.accessKeyId))
        throw new StripeError(
          'CONFIG_INVALID',
          `S3 access key ${JSON.stringify(pair.accessKeyId)} is not 3-128 characters of A-Z a-z 0-9 + = , . @ _ -`,
        );
      if (pair.secretKey.length < 8)
        throw new StripeError(
          'CONFIG_INVALID',
          `the S3 secret of ${pair.accessKeyId} is shorter than 8 characters`,
        );
      const name = pair.name ?? pair.accessKeyId;
      this.byKey.set(pair.accessKeyId, {
        secretKey: pair.secretKey,
        identity: { name, accessKeyId: pair.accessKeyId },
      });
    }
  }

  get size(): number {
    return this.byKey.size;
  }

  async lookup(accessKeyId: string): Promise<Credential | undefined> {
    return this.byKey.get(accessKeyId);
  }
}

/** How often, at most, a keyring file is looked at again (a replaced or removed one counts after it). */
export const KEYRING_RECHECK_MS = 1_000;
/** Keyrings kept in memory at once (the least recently checked is dropped first). */
const KEYRINGS_CACHED_MAX = 4_096;

interface Cached {
  credential: Credential | undefined;
  /** The file as last read (mtime and size): a change is read again. */
  version: string;
  checkedMs: number;
}

/**
 * stripefs identities: the gateway's own (the keyring it signs with) and every NAME.keyring in
 * `dir`. Access key NAME's secret is s3SecretOf of that keyring's key; the request is then made
 * as NAME. A file is checked again at most every KEYRING_RECHECK_MS, so a rotated keyring put
 * in its place, or one removed, counts without a restart.
 */
export class KeyringCredentials implements CredentialStore {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly dir: string | undefined,
    private readonly own: Keyring | undefined,
    private readonly nowMs: () => number = Date.now,
  ) {}

  async lookup(accessKeyId: string): Promise<Credential | undefined> {
    if (this.own && accessKeyId === this.own.name)
      return { secretKey: s3SecretOf(this.own.secret), identity: { name: accessKeyId, accessKeyId } };
    if (this.dir === undefined || !isIdentityName(accessKeyId)) return undefined;
    const nowMs = this.nowMs();
    const cached = this.cache.get(accessKeyId);
    if (cached && nowMs - cached.checkedMs < KEYRING_RECHECK_MS) return cached.credential;
    const path = join(this.dir, `${accessKeyId}.keyring`);
    const version = versionOf(path);
    const credential =
      cached && cached.version === version ? cached.credential : credentialOf(path, accessKeyId, version);
    this.cache.delete(accessKeyId);
    if (this.cache.size >= KEYRINGS_CACHED_MAX) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(accessKeyId, { credential, version, checkedMs: nowMs });
    return credential;
  }
}

function isIdentityName(name: string): boolean {
  try {
    checkIdentityName(name);
    return true;
  } catch {
    return false;
  }
}

function versionOf(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.mtimeMs} ${stat.size} ${stat.ino}`;
  } catch {
    return 'missing';
  }
}

/** The credential in a keyring file; undefined when it is missing, unreadable, or names another identity. */
function credentialOf(path: string, accessKeyId: string, version: string): Credential | undefined {
  if (version === 'missing') return undefined;
  let keyring: Keyring;
  try {
    keyring = readKeyring(path);
  } catch {
    // A file others may read, or not a keyring: the key is not served (as if absent).
    return undefined;
  }
  if (keyring.name !== accessKeyId) return undefined;
  return {
    secretKey: s3SecretOf(keyring.secret),
    identity: { name: keyring.name, accessKeyId, actAs: keyring },
  };
}

/** Looks in each store in turn: the first that knows the key answers. */
export class CredentialChain implements CredentialStore {
  constructor(private readonly stores: readonly CredentialStore[]) {}

  async lookup(accessKeyId: string): Promise<Credential | undefined> {
    for (const store of this.stores) {
      const found = await store.lookup(accessKeyId);
      if (found) return found;
    }
    return undefined;
  }
}

/**
 * A credentials file: one pair per line, `ACCESS_KEY SECRET_KEY [NAME]`; blank lines and lines
 * starting with # are skipped.
 */
export function readCredentialsFile(
  path: string,
): { accessKeyId: string; secretKey: string; name?: string }[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new StripeError(
      'CONFIG_INVALID',
      `cannot read the S3 credentials file ${path}: ${(err as Error).message}`,
    );
  }
  const pairs: { accessKeyId: string; secretKey: string; name?: string }[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const [accessKeyId, secretKey, name, ...extra] = trimmed.split(/\s+/);
    if (!accessKeyId || !secretKey || extra.length > 0)
      throw new StripeError(
        'CONFIG_INVALID',
        `${path} line ${index + 1}: expected ACCESS_KEY SECRET_KEY [NAME]`,
      );
    pairs.push(name ? { accessKeyId, secretKey, name } : { accessKeyId, secretKey });
  }
  return pairs;
}
