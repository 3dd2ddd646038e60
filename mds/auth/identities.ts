// The identities the MDS knows, kept in its database (keys.ts: K/<name>) and
// in memory for the per-call check. A record holds the stored key derived from
// the secret (common/auth/proof.ts), never the secret: the CLI makes secrets
// and keyring files, the MDS sees only what verifies them.

import { type Cap, formatCaps, parseCaps } from '../../common/auth/caps.js';
import { type AllowList, allowListOf } from '../../common/auth/cidr.js';
import { checkIdentityName, type Identity } from '../../common/auth/keyring.js';
import { storedKeyOf } from '../../common/auth/proof.js';
import { scratchCapOf } from '../../common/auth/scratch.js';
import { type Clock, StripeError } from '../../common/index.js';
import type { GroupCommitter } from '../commit.js';
import type { MdsDb } from '../db.js';
import { KEYS } from '../keys.js';

/** Identities the MDS keeps at most (each is checked in memory on every call). */
export const IDENTITIES_MAX = 10_000;

export interface IdentityRecord {
  name: string;
  /** base64 SHA-256 of the client key. */
  storedKey: string;
  caps: string;
  admin: boolean;
  allow: string[];
  createdMs: number;
  rotatedMs: number;
  /** A service identity (an OSS); absent in records written before there were any. */
  service?: boolean;
}

export interface KnownIdentity {
  readonly record: IdentityRecord;
  readonly storedKey: Buffer;
  readonly caps: readonly Cap[];
  readonly allow: AllowList;
}

export interface IdentitySpec {
  name: string;
  storedKey: Buffer;
  caps: string;
  admin: boolean;
  allow: string[];
  service?: boolean;
}

function known(record: IdentityRecord): KnownIdentity {
  return {
    record,
    storedKey: Buffer.from(record.storedKey, 'base64'),
    // Its own folder (common/auth/scratch.ts) besides what the record grants.
    caps: [...parseCaps(record.caps), scratchCapOf(record.name)],
    allow: allowListOf(record.allow),
  };
}

function checkStoredKey(storedKey: Buffer): void {
  if (storedKey.length !== 32)
    throw new StripeError('REQ_INVALID', `a stored key is 32 bytes, got ${storedKey.length}`);
}

export class IdentityStore {
  private readonly byName = new Map<string, KnownIdentity>();

  constructor(
    private readonly db: MdsDb,
    private readonly committer: GroupCommitter,
    private readonly clock: Clock,
  ) {}

  async init(): Promise<void> {
    for await (const [, value] of this.db.iterator(KEYS.identityRange)) {
      const record = value as IdentityRecord;
      this.byName.set(record.name, known(record));
    }
  }

  get size(): number {
    return this.byName.size;
  }

  get(name: string): KnownIdentity | undefined {
    return this.byName.get(name);
  }

  must(name: string): KnownIdentity {
    const found = this.byName.get(name);
    if (!found) throw new StripeError('AUTH_NOT_FOUND', `no identity ${JSON.stringify(name)}`, { name });
    return found;
  }

  list(): KnownIdentity[] {
    return [...this.byName.values()].sort((a, b) => a.record.name.localeCompare(b.record.name));
  }

  /** A new database's first admin: the keyring's identity with rw on / (nothing when any identity exists). */
  async bootstrap(identity: Identity): Promise<boolean> {
    if (this.byName.size > 0) return false;
    await this.add({
      name: identity.name,
      storedKey: storedKeyOf(identity.secret),
      caps: 'rw /',
      admin: true,
      allow: [],
    });
    return true;
  }

  async add(spec: IdentitySpec): Promise<KnownIdentity> {
    checkIdentityName(spec.name);
    checkStoredKey(spec.storedKey);
    if (this.byName.has(spec.name))
      throw new StripeError(
        'AUTH_EXISTS',
        `identity ${spec.name} exists: rotate its key or change its caps`,
        { name: spec.name },
      );
    if (this.byName.size >= IDENTITIES_MAX)
      throw new StripeError('REQ_TOO_LARGE', `the MDS keeps at most ${IDENTITIES_MAX} identities`);
    const nowMs = this.clock.nowMs();
    const caps = formatCaps(parseCaps(spec.caps));
    allowListOf(spec.allow);
    return this.put({
      name: spec.name,
      storedKey: spec.storedKey.toString('base64'),
      caps,
      admin: spec.admin,
      allow: spec.allow,
      createdMs: nowMs,
      rotatedMs: nowMs,
      ...(spec.service ? { service: true } : {}),
    });
  }

  async setCaps(
    name: string,
    caps: string,
    admin: boolean,
    allow: string[],
    service = false,
  ): Promise<KnownIdentity> {
    const { service: _was, ...current } = this.must(name).record;
    allowListOf(allow);
    return this.put({
      ...current,
      caps: formatCaps(parseCaps(caps)),
      admin,
      allow,
      ...(service ? { service } : {}),
    });
  }

  async rotate(name: string, storedKey: Buffer): Promise<KnownIdentity> {
    checkStoredKey(storedKey);
    const current = this.must(name).record;
    return this.put({ ...current, storedKey: storedKey.toString('base64'), rotatedMs: this.clock.nowMs() });
  }

  async remove(name: string): Promise<void> {
    this.must(name);
    await this.committer.submit([{ type: 'del', key: KEYS.identity(name) }]);
    this.byName.delete(name);
  }

  /** Persists first, then serves: a change is in effect once it is on disk. */
  private async put(record: IdentityRecord): Promise<KnownIdentity> {
    const next = known(record);
    await this.committer.submit([{ type: 'put', key: KEYS.identity(record.name), value: record }]);
    this.byName.set(record.name, next);
    return next;
  }
}
