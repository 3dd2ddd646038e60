// The writer's version stamps: a hybrid logical clock, one safe integer per
// write (milliseconds times 1024 plus a counter), never repeated and never
// going back within a client. Every copy of an object takes the highest stamp
// it applied as its version (oss/store/object-store.ts), so copies that applied
// the same writes agree on it whatever order the writes arrived in, and a copy
// that missed one is behind; recovery uses it never to copy older bytes over
// newer ones. Clients on different hosts order their writes by their clocks:
// see docs/ARCHITECTURE.md ("Versioned copies") for what that assumes.

/** Stamps per millisecond before the clock borrows from the next one. */
export const STAMPS_PER_MS = 1024;

export class VersionClock {
  private last = 0;

  constructor(private readonly nowMs: () => number = Date.now) {}

  /** A stamp above every one this clock gave or observed. */
  next(): number {
    this.last = Math.max(Math.floor(this.nowMs()) * STAMPS_PER_MS, this.last + 1);
    return this.last;
  }

  /** Moves the clock past a version seen elsewhere (a copy's answer), so the next write is newer. */
  observe(version: number): void {
    if (Number.isSafeInteger(version) && version > this.last) this.last = version;
  }
}
