// Writes made with a map the MDS does not yet let writes use wait here: the
// MDS lets an epoch that takes a PG from an OST be used only once that OST's
// OSS has applied it or its read lease has lapsed (mds/cluster/fences.ts), and
// says so on the map stream, GetMap and heartbeat answers (`writable_epoch`).
// Every copy of an acknowledged write passed some OSS's fence, so no write
// made with the newer map is acknowledged while an OSS still on the older map
// may serve the PG's old copy to a reader on that map.
import { StripeError } from '../common/errors.js';
import type { Clock } from '../common/random.js';
import { FENCE_POLL_MS, FENCE_WAIT_MARGIN_MS } from './limits.js';

export class WriteFence {
  /** The newest epoch the MDS lets writes use; Infinity once an MDS answered that keeps no fence. */
  private writable = 0;
  private readonly waiters = new Set<() => void>();
  /** The read lease the MDS gives: a fence lifts within it once the map that opened it exists. */
  leaseMs = 0;
  /** Writes that had to wait, and those refused after waiting (metrics and tests). */
  held = 0;
  refused = 0;

  constructor(private readonly clock: Clock) {}

  get writableEpoch(): number {
    return this.writable;
  }

  /** What an MDS answer said (undefined: that MDS keeps no fence). */
  learn(writableEpoch: number | undefined): void {
    const epoch = writableEpoch ?? Number.POSITIVE_INFINITY;
    if (epoch <= this.writable) return;
    this.writable = epoch;
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  /**
   * Resolves once writes may use `epoch`. Waits for the MDS to say so (the map stream; `ask`, a
   * GetMap, every FENCE_POLL_MS), at most the lease plus FENCE_WAIT_MARGIN_MS, then refuses
   * (REQ_UNAVAILABLE: the writer tries again). Without `ask` (no MDS link) nothing is held.
   */
  async admit(epoch: number, ostName: string, ask: (() => Promise<void>) | undefined): Promise<void> {
    if (!ask || epoch <= this.writable) return;
    this.held++;
    const deadline = this.clock.monotonicMs() + this.leaseMs + FENCE_WAIT_MARGIN_MS;
    while (epoch > this.writable) {
      const left = deadline - this.clock.monotonicMs();
      if (left <= 0) break;
      const heard = await this.changedWithin(Math.min(left, FENCE_POLL_MS));
      if (!heard && epoch > this.writable) await ask();
    }
    if (epoch <= this.writable) return;
    this.refused++;
    throw new StripeError(
      'REQ_UNAVAILABLE',
      `${ostName} holds writes made with map epoch ${epoch} until every OSS the map takes a PG from has it or has lost its read lease (the MDS lets epoch ${this.writable}): try again shortly`,
      { epoch, writableEpoch: this.writable },
    );
  }

  /** True when the writable epoch moved on within `ms`. */
  private changedWithin(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        resolve(false);
      }, ms);
      this.waiters.add(wake);
    });
  }
}
