// As whom the gateway acts. A request signed with a stripefs identity's S3 key
// is carried out by a client that signs as that identity, so the MDS checks
// that identity's caps on every call (and audits it under its name) and the
// OSSs check the tickets it was given: the gateway cannot reach what the
// identity cannot. Configured pairs act as the gateway's own client. Each
// identity stages its writes and multipart uploads in its own folder
// (common/auth/scratch.ts), where its implicit cap lets it write.
// Clients are kept least recently used first, at most S3_LIMITS.actorsMax; one
// dropped (or replaced by a rotated keyring) is closed once its requests end.
import type { StripeClient } from '../client/index.js';
import { type Access, type Cap, checkCaps, parseCaps } from '../common/auth/caps.js';
import { type AllowList, allowListOf } from '../common/auth/cidr.js';
import type { Identity as Keyring } from '../common/auth/keyring.js';
import { scratchCapOf, scratchPathOf } from '../common/auth/scratch.js';
import { StripeError } from '../common/errors.js';
import type { Identity } from './credentials.js';
import { S3_LIMITS } from './limits.js';

/** An identity's caps and allow-list as the MDS holds them. */
export interface ActorRules {
  caps: Cap[];
  allow: AllowList;
}

export interface Actor {
  name: string;
  client: StripeClient;
  /** The identity's own folder: staging files in tmp/, multipart uploads in uploads/. */
  scratch: string;
  /** Its rules, asked of the MDS at most every S3_LIMITS.actorRulesTtlMs; undefined: no auth. */
  rules(): Promise<ActorRules | undefined>;
}

interface Entry {
  actor: Promise<Actor>;
  users: number;
  retired: boolean;
}

export function stagingDirOf(scratch: string): string {
  return `${scratch}/tmp`;
}

export function uploadsDirOf(scratch: string): string {
  return `${scratch}/uploads`;
}

/** An actor over `client`, with its rules cached for S3_LIMITS.actorRulesTtlMs. */
export function actorOf(name: string, client: StripeClient, nowMs: () => number = Date.now): Actor {
  let cached: { rules: Promise<ActorRules | undefined>; atMs: number } | undefined;
  const fetch = async (): Promise<ActorRules | undefined> => {
    const who = await client.whoami();
    if (!who) return undefined;
    return { caps: [...parseCaps(who.caps), scratchCapOf(who.name)], allow: allowListOf(who.allow) };
  };
  return {
    name,
    client,
    scratch: scratchPathOf(name),
    rules() {
      const at = nowMs();
      if (!cached || at - cached.atMs >= S3_LIMITS.actorRulesTtlMs) {
        const rules = fetch();
        cached = { rules, atMs: at };
        rules.catch(() => {
          if (cached?.rules === rules) cached = undefined;
        });
      }
      return cached.rules;
    },
  };
}

/** The folders an actor writes in, made on first use. */
async function prepare(actor: Actor): Promise<Actor> {
  await actor.client.mkdir(stagingDirOf(actor.scratch), { recursive: true });
  await actor.client.mkdir(uploadsDirOf(actor.scratch), { recursive: true });
  return actor;
}

export class Actors {
  private readonly entries = new Map<string, Entry>();
  private readonly ownReady: Promise<Actor>;

  constructor(
    own: Actor,
    private readonly connect: (keyring: Keyring) => Promise<StripeClient>,
  ) {
    this.ownReady = prepare(own);
    // Surfaced by the first request that needs it.
    this.ownReady.catch(() => undefined);
  }

  /** The actor for a request of `identity`; call release() when the request is done. */
  async acquire(identity: Identity): Promise<{ actor: Actor; release(): void }> {
    const keyring = identity.actAs;
    if (!keyring) return { actor: await this.ownReady, release: () => undefined };
    const key = `${keyring.name}\0${keyring.secret.toString('base64')}`;
    let entry = this.entries.get(key);
    if (entry) this.entries.delete(key);
    else {
      this.retireName(keyring.name);
      entry = { actor: this.open(keyring), users: 0, retired: false };
    }
    this.entries.set(key, entry);
    this.trim();
    const held = entry;
    held.users += 1;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      held.users -= 1;
      if (held.retired && held.users === 0) void closeEntry(held);
    };
    try {
      return { actor: await held.actor, release };
    } catch (err) {
      release();
      if (this.entries.get(key) === held) this.entries.delete(key);
      throw err;
    }
  }

  private async open(keyring: Keyring): Promise<Actor> {
    const client = await this.connect(keyring);
    try {
      return await prepare(actorOf(keyring.name, client));
    } catch (err) {
      await client.close();
      throw err;
    }
  }

  /** A keyring replaced (rotated): its older client goes once idle. */
  private retireName(name: string): void {
    for (const [key, entry] of this.entries)
      if (key.startsWith(`${name}\0`)) {
        this.entries.delete(key);
        this.retire(entry);
      }
  }

  private trim(): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= S3_LIMITS.actorsMax) break;
      this.entries.delete(key);
      this.retire(entry);
    }
  }

  private retire(entry: Entry): void {
    entry.retired = true;
    if (entry.users === 0) void closeEntry(entry);
  }

  get size(): number {
    return this.entries.size;
  }

  async close(): Promise<void> {
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(entries.map(closeEntry));
  }
}

async function closeEntry(entry: Entry): Promise<void> {
  // A client that never connected has nothing to close.
  const actor = await entry.actor.catch(() => undefined);
  await actor?.client.close();
}

/**
 * Refuses a request from `address` that the identity's allow-list, or the `from` of the caps on
 * what it names, does not admit (AUTH_ADDRESS_DENIED, answered as AccessDenied). The MDS checks
 * the same rules against the gateway's address; this check is the S3 client's.
 */
export function checkAddress(
  actor: Actor,
  rules: ActorRules | undefined,
  address: string | undefined,
  targets: readonly [string, Access][],
): void {
  if (!rules) return;
  const refused = !rules.allow.allows(address)
    ? 'its allow-list'
    : targets.find(
        ([path, access]) => checkCaps(rules.caps, path, access, address) === 'AUTH_ADDRESS_DENIED',
      )?.[0];
  if (refused === undefined) return;
  throw new StripeError(
    'AUTH_ADDRESS_DENIED',
    `${actor.name} may not reach ${refused === 'its allow-list' ? 'this gateway' : refused} from ${address ?? 'an unknown address'} (${refused === 'its allow-list' ? 'its allow-list' : 'the caps on it'})`,
    { identity: actor.name, address, s3Code: 'AccessDenied', door: 's3' },
  );
}
