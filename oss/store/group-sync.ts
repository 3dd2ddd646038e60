// Group commit of durability requests of one kind (an object file's fdatasync, the index log's
// synced write): a request for a key with no run in flight starts one at once; a request that
// arrives while one is in flight cannot be covered by it (its bytes may have been written after
// that run began), so it waits for the next run, which starts as soon as the one in flight ends
// and covers every request that arrived meanwhile. N concurrent requests thus cost two runs at
// most instead of N, and each still resolves only after a run that began after it was made.
// A run's failure is thrown to every request it covered, and to those only.
// Each request brings a handle the run may use (an open descriptor of the
// file): a run uses the one of the request that started it or of the first
// that joined it, and every request holds its own until it is answered.

interface Slot<H> {
  /** The run in flight. */
  running: Promise<void>;
  /** The run that starts once `running` ends, shared by the requests that came during it. */
  next: Promise<void> | undefined;
  /** The handle `next` runs with: its first request's. */
  nextHandle: H | undefined;
}

export class GroupSync<K, H = undefined> {
  private readonly slots = new Map<K, Slot<H>>();
  /** Runs started (each one fdatasync or synced write), for the OST's counters. */
  runs = 0;
  /** Requests answered, covered by those runs. */
  requests = 0;

  constructor(private readonly work: (key: K, handle: H) => Promise<void>) {}

  /**
   * Resolves once a run that started after this call has ended; rejects with that run's failure.
   * `handle` must stay usable until then.
   */
  run(key: K, handle: H): Promise<void> {
    this.requests++;
    const slot = this.slots.get(key);
    if (slot) {
      if (!slot.next) {
        slot.nextHandle = handle;
        slot.next = this.after(key, slot);
      }
      return slot.next;
    }
    const fresh: Slot<H> = { running: Promise.resolve(), next: undefined, nextHandle: undefined };
    this.slots.set(key, fresh);
    fresh.running = this.launch(key, fresh, handle);
    return fresh.running;
  }

  /** The run after the one in flight (whose failure belongs to its own requests). */
  private async after(key: K, slot: Slot<H>): Promise<void> {
    await slot.running.then(
      () => undefined,
      () => undefined,
    );
    const handle = slot.nextHandle as H;
    slot.running = slot.next as Promise<void>;
    slot.next = undefined;
    slot.nextHandle = undefined;
    await this.launch(key, slot, handle);
  }

  private async launch(key: K, slot: Slot<H>, handle: H): Promise<void> {
    this.runs++;
    try {
      await this.work(key, handle);
    } finally {
      if (slot.next === undefined && this.slots.get(key) === slot) this.slots.delete(key);
    }
  }

  /** Settles once no run is in flight or waiting. */
  async idle(): Promise<void> {
    while (this.slots.size > 0)
      for (const slot of [...this.slots.values()])
        await (slot.next ?? slot.running).then(
          () => undefined,
          () => undefined,
        );
  }
}
