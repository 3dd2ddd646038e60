// Which OSTs this client has recently seen fail (a timeout, a refused
// connection, an injected fault). The map says which OSTs the MDS thinks are
// up, but it learns of a hung or failing OST only after heartbeats stop, if
// ever; until then, reads would wait out a timeout on every request. A suspect
// OST is not excluded, only tried after the others, until it is forgotten
// after `suspectMs` or answers again.

/** Codes that say something about the OST rather than about one copy of one object. */
const OST_TROUBLE = new Set(['REQ_TIMEOUT', 'REQ_UNAVAILABLE', 'FAULT_INJECTED', 'REQ_INTERNAL']);

export class OstHealth {
  private readonly failedAtMs = new Map<number, number>();

  constructor(
    private readonly suspectMs: number,
    private readonly nowMs: () => number = () => performance.now(),
  ) {}

  /** Records the outcome of one request to `ost` (`code` undefined on success). */
  record(ost: number, code: string | undefined): void {
    if (code === undefined) this.failedAtMs.delete(ost);
    else if (OST_TROUBLE.has(code)) this.failedAtMs.set(ost, this.nowMs());
  }

  isSuspect(ost: number): boolean {
    const at = this.failedAtMs.get(ost);
    if (at === undefined) return false;
    if (this.nowMs() - at < this.suspectMs) return true;
    this.failedAtMs.delete(ost);
    return false;
  }

  /** 0: up and healthy, 1: up but suspect, 2: down. */
  rank(ost: number, up: boolean): number {
    return up ? (this.isSuspect(ost) ? 1 : 0) : 2;
  }

  /** `osts` in the order to try them: up and healthy, up and suspect, then down (stable within each). */
  order(osts: number[], isUp: (ost: number) => boolean): number[] {
    const rank = (ost: number): number => this.rank(ost, isUp(ost));
    return osts
      .map((ost, i) => ({ ost, i, r: rank(ost) }))
      .sort((a, b) => a.r - b.r || a.i - b.i)
      .map((e) => e.ost);
  }
}
