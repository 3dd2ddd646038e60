// Client sessions as the MDS sees them: one per (identity, client id), with
// the sliding window of sequence numbers that refuses a replayed call (IPsec's
// anti-replay window) and what `stripefs client ls` shows. A session idle for
// longer than the time window is forgotten: every call it could still replay
// carries a time outside the window by then.

/** Sequence numbers behind the highest seen that are still accepted (calls in flight arrive out of order). */
export const REPLAY_WINDOW_CALLS = 1_024;
/** Sessions the MDS remembers at once; past it a new session is refused until idle ones age out. */
export const SESSIONS_MAX = 100_000;

export interface Session {
  readonly name: string;
  readonly clientId: string;
  address: string | undefined;
  readonly firstMs: number;
  lastMs: number;
  calls: number;
  denied: number;
  highestSeq: number;
  readonly seen: Float64Array;
  /** Refused from now on (stripefs client evict); kept as long as the session is remembered. */
  evicted: boolean;
}

export type SeqVerdict = 'ok' | 'replayed';

/** Accepts each sequence number once, within REPLAY_WINDOW_CALLS of the highest. */
export function acceptSeq(session: Session, seq: number): SeqVerdict {
  const slot = seq % REPLAY_WINDOW_CALLS;
  if (seq > session.highestSeq) {
    session.highestSeq = seq;
    session.seen[slot] = seq;
    return 'ok';
  }
  if (seq <= session.highestSeq - REPLAY_WINDOW_CALLS || session.seen[slot] === seq) return 'replayed';
  session.seen[slot] = seq;
  return 'ok';
}

export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  private lastSweepMs = 0;

  constructor(private readonly idleMs: number) {}

  get size(): number {
    return this.sessions.size;
  }

  /** The session of (name, clientId), made when new; undefined when the table is full. */
  touch(name: string, clientId: string, nowMs: number): Session | undefined {
    this.sweep(nowMs);
    const key = `${name} ${clientId}`;
    let session = this.sessions.get(key);
    if (!session) {
      if (this.sessions.size >= SESSIONS_MAX) return undefined;
      session = {
        name,
        clientId,
        address: undefined,
        firstMs: nowMs,
        lastMs: nowMs,
        calls: 0,
        denied: 0,
        highestSeq: 0,
        seen: new Float64Array(REPLAY_WINDOW_CALLS),
        evicted: false,
      };
      this.sessions.set(key, session);
    }
    session.lastMs = nowMs;
    return session;
  }

  list(): Session[] {
    return [...this.sessions.values()];
  }

  /** Marks a session evicted; false when no session has that id. */
  evict(clientId: string): Session | undefined {
    for (const session of this.sessions.values())
      if (session.clientId === clientId) {
        session.evicted = true;
        return session;
      }
    return undefined;
  }

  /** Forgets the sessions of an identity (removed or rotated). */
  dropIdentity(name: string): void {
    for (const [key, session] of this.sessions) if (session.name === name) this.sessions.delete(key);
  }

  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweepMs < this.idleMs / 4) return;
    this.lastSweepMs = nowMs;
    for (const [key, session] of this.sessions)
      if (nowMs - session.lastMs > this.idleMs) this.sessions.delete(key);
  }
}
