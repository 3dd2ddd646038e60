// Where a process's identity comes from: a keyring path or an identity given,
// else the keyring auth.keyring (STRIPEFS_KEYRING) names, else the one
// `stripefs cluster up` writes in ./data. Apart from signing.ts so that what
// signs HTTP requests (common/auth/http-auth.ts) loads no gRPC.
import { existsSync } from 'node:fs';
import { loadConfig } from '../config.js';
import { type Identity, readKeyring } from './keyring.js';

/** The keyring `stripefs cluster up` writes, which the CLI run from that folder uses without flags. */
export const DEFAULT_KEYRING_PATH = 'data/admin.keyring';

/** A keyring path, an identity, or null for none at all (a caller that signs nothing). */
export type IdentitySource = string | Identity | null;

/**
 * The identity to sign with: the one given; else the keyring named by auth.keyring
 * (STRIPEFS_KEYRING); else ./data/admin.keyring when it exists; else none (the MDS then
 * answers AUTH_REQUIRED, unless it runs without auth).
 */
export function resolveIdentity(
  source: IdentitySource | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Identity | undefined {
  if (source === null) return undefined;
  if (typeof source === 'string') return readKeyring(source);
  if (source) return source;
  const configured = loadConfig({ env })['auth.keyring'];
  if (configured !== '') return readKeyring(configured);
  return existsSync(DEFAULT_KEYRING_PATH) ? readKeyring(DEFAULT_KEYRING_PATH) : undefined;
}
