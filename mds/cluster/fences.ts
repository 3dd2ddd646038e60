// The write fence: a map epoch that takes a PG from an OST is let to writes
// only once that OST's OSS has applied it or its read lease has lapsed. An
// OSS still on the older map (cut off from the MDS, or slow to hear the map)
// serves a reader still on that map as the PG's member; writes made with the
// newer map reach the PG's new members and not it, so it would return the
// bytes from before them. Ceph's new PG interval waits out the read leases of
// the prior interval the same way. Pure bookkeeping: the clock and what each
// OSS said are given to it (mds/cluster/service.ts).

/** One epoch's fence: per OSS still waited for, when its read lease lapses at the latest (monotonic ms). */
interface Fence {
  epoch: number;
  waiting: Map<string, number>;
}

export interface FenceStatus {
  /** The newest epoch writes may use. */
  writableEpoch: number;
  /** Epochs not yet let to writes, oldest first, with the OSSs each waits for. */
  pending: { epoch: number; oss: string[] }[];
}

export class MapFences {
  /** Per OSS, when the MDS last received a call it answers with a read lease (monotonic ms). */
  private readonly heardMs = new Map<string, number>();
  /** Per OSS, the newest map epoch it said it applied. */
  private readonly appliedEpoch = new Map<string, number>();
  private pending: Fence[] = [];

  /**
   * A registration or heartbeat of `ossId` arrived: its lease runs from no later than now. A
   * heartbeat says which map the OSS applied, which lifts its part of every fence up to it.
   */
  heard(ossId: string, nowMs: number, appliedEpoch?: number): void {
    this.heardMs.set(ossId, nowMs);
    if (appliedEpoch === undefined) return;
    this.appliedEpoch.set(ossId, Math.max(this.appliedEpoch.get(ossId) ?? 0, appliedEpoch));
    for (const fence of this.pending) if (fence.epoch <= appliedEpoch) fence.waiting.delete(ossId);
    this.settle();
  }

  /**
   * Epoch `epoch` takes PGs from OSTs of `ossIds`: it waits for each OSS to apply it, or until the
   * lease of the last call the MDS answered it lapses (`leaseMs` after that call arrived; never
   * heard since this MDS started: from now, since it may hold a lease from the MDS before).
   */
  open(epoch: number, ossIds: Iterable<string>, nowMs: number, leaseMs: number): void {
    const waiting = new Map<string, number>();
    for (const ossId of ossIds) {
      if ((this.appliedEpoch.get(ossId) ?? 0) >= epoch) continue;
      const lapsesMs = (this.heardMs.get(ossId) ?? nowMs) + leaseMs;
      if (lapsesMs > nowMs) waiting.set(ossId, lapsesMs);
    }
    if (waiting.size > 0) this.pending.push({ epoch, waiting });
  }

  /** Lifts the parts whose lease has lapsed by `nowMs`. */
  expire(nowMs: number): void {
    for (const fence of this.pending)
      for (const [ossId, lapsesMs] of fence.waiting) if (lapsesMs <= nowMs) fence.waiting.delete(ossId);
    this.settle();
  }

  /** The newest epoch writes may use: the one before the oldest fence still up, else the current one. */
  writableEpoch(currentEpoch: number): number {
    const oldest = this.pending[0];
    return oldest ? Math.min(currentEpoch, oldest.epoch - 1) : currentEpoch;
  }

  status(currentEpoch: number): FenceStatus {
    return {
      writableEpoch: this.writableEpoch(currentEpoch),
      pending: this.pending.map((f) => ({ epoch: f.epoch, oss: [...f.waiting.keys()].sort() })),
    };
  }

  /** An OSS removed from the cluster: nothing waits for it any more. */
  forget(ossId: string): void {
    this.heardMs.delete(ossId);
    this.appliedEpoch.delete(ossId);
    for (const fence of this.pending) fence.waiting.delete(ossId);
    this.settle();
  }

  private settle(): void {
    this.pending = this.pending.filter((f) => f.waiting.size > 0);
  }
}
