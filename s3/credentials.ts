// Who may call the gateway. Access keys come from a CredentialStore: today a
// static one built from configuration (s3.accessKey/s3.secretKey, and a
// credentials file of more pairs); when stripefs has keyrings (identities
// and path caps kept by the MDS), a store backed by them implements the same
// interface, and its authorize() applies the identity's caps to the path.
import { readFileSync } from 'node:fs';
import { StripeError } from '../common/errors.js';

export interface Identity {
  /** The name the gateway logs and, with keyrings, the identity whose caps apply. */
  name: string;
  accessKeyId: string;
}

export interface Credential {
  secretKey: string;
  identity: Identity;
}

/** What the gateway asks of the bucket and key a request touches. */
export type Access = 'read' | 'write' | 'list' | 'admin';

export interface CredentialStore {
  /** The secret of an access key and the identity it proves; undefined for an unknown key. */
  lookup(accessKeyId: string): Promise<Credential | undefined>;
  /** Whether `identity` may do `access` on the bucket (and key): false answers AccessDenied. */
  authorize(identity: Identity, access: Access, bucket: string | undefined, key?: string): Promise<boolean>;
}

/** Fixed pairs: every known key may do everything (no caps until keyrings exist). */
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

  async authorize(): Promise<boolean> {
    return true;
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
