// Keyring files: one identity's name and secret, Ceph's keyring shape
// ("[name]" then "key = ..."), written 0600 and refused when others can read
// them. The secret never leaves this file: the MDS stores only the stored key
// derived from it (proof.ts), so a copy of its database cannot sign calls.
import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { StripeError } from '../errors.js';

/** An identity as a client holds it: its name and its secret (32 random bytes). */
export interface Identity {
  name: string;
  secret: Buffer;
}

export const SECRET_BYTES = 32;
/** The name of the OSSs' service identity when its keyring is made for them (auth.ossKeyring). */
export const OSS_SERVICE_NAME = 'oss';
const NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

export function checkIdentityName(name: string): void {
  if (!NAME_PATTERN.test(name))
    throw new StripeError(
      'REQ_INVALID',
      `identity name ${JSON.stringify(name)}: expected 1-64 of A-Z a-z 0-9 . _ -`,
    );
}

export function generateIdentity(name: string): Identity {
  checkIdentityName(name);
  return { name, secret: randomBytes(SECRET_BYTES) };
}

/**
 * The S3 secret access key of an identity (its access key id is its name): derived from the
 * secret, so the S3 gateway that holds the keyring can check a signature (SigV4 needs the
 * secret at both ends) and a rotated key changes it too. It is not the keyring's secret: one
 * copied into an S3 tool's settings signs S3 requests, never MDS calls.
 */
export function s3SecretOf(secret: Buffer): string {
  return createHmac('sha256', secret).update('stripefs s3 secret').digest('base64url');
}

export function formatKeyring(identity: Identity): string {
  return `# stripefs keyring: keep it private (mode 0600)\n[${identity.name}]\n\tkey = ${identity.secret.toString('base64')}\n`;
}

export function parseKeyring(text: string, where: string): Identity {
  let name: string | undefined;
  let secret: Buffer | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      if (name !== undefined) break;
      name = section[1];
      continue;
    }
    const key = /^key\s*=\s*(\S+)$/.exec(line);
    if (key && name !== undefined) secret = Buffer.from(key[1] as string, 'base64');
  }
  if (name === undefined || secret === undefined || secret.length !== SECRET_BYTES)
    throw new StripeError(
      'AUTH_KEYRING_INVALID',
      `${where} is not a stripefs keyring: expected "[NAME]" and "key = " with ${SECRET_BYTES} base64 bytes`,
    );
  checkIdentityName(name);
  return { name, secret };
}

/** Reads a keyring file; one that group or others may read is refused, as ssh refuses such keys. */
export function readKeyring(path: string): Identity {
  let text: string;
  try {
    if ((statSync(path).mode & 0o077) !== 0)
      throw new StripeError('AUTH_KEYRING_INVALID', `${path} may be read by others: chmod 600 ${path}`);
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof StripeError) throw err;
    throw new StripeError('AUTH_KEYRING_INVALID', `cannot read keyring ${path}: ${(err as Error).message}`);
  }
  return parseKeyring(text, path);
}

/** Writes a keyring file with mode 0600 (refusing to replace one unless `replace`). */
export function writeKeyring(path: string, identity: Identity, replace = false): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, formatKeyring(identity), { mode: 0o600, flag: replace ? 'w' : 'wx' });
  chmodSync(path, 0o600);
}

/** The keyring at `path`, made with a new secret for `name` when the file does not exist. */
export function ensureKeyring(path: string, name: string): { identity: Identity; created: boolean } {
  if (existsSync(path)) return { identity: readKeyring(path), created: false };
  const identity = generateIdentity(name);
  try {
    writeKeyring(path, identity);
  } catch (err) {
    // Another process made it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      return { identity: readKeyring(path), created: false };
    throw err;
  }
  return { identity, created: true };
}
