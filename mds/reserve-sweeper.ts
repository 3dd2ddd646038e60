// Collects reserved inodes whose lease ended unpublished (a client that died between writing a
// file's objects and publishing it, or one that reserved more than it used): each reservation
// record becomes a destroy-queue record, whose worker deletes the objects wherever the layout put
// them. A grace past the lease lets a write checked with the reservation's ticket just before it
// expired land first, so the delete comes after it.
import type { Clock, Logger } from '../common/index.js';
import { KEYS } from './keys.js';
import type { Namespace } from './namespace.js';
import { abandonReserved } from './ops/publish.js';
import type { ReservedRecord } from './records.js';

/** How often the records are scanned, and how long past a lease a reservation is left alone. */
export const RESERVE_SWEEP_MS = 1_000;
export const RESERVE_GRACE_MS = 5_000;
/** Records read per scan at most (the next scan reads on). */
export const RESERVE_SCAN_RECORDS_MAX = 4_096;

export class ReservationSweeper {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> = Promise.resolve();
  private running = false;
  private cursor = '';
  /** Reservations collected since start (metrics, tests). */
  collected = 0;

  constructor(
    private readonly ns: Namespace,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly graceMs = RESERVE_GRACE_MS,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = true;
      this.pass = this.sweep()
        .then(() => undefined)
        .catch((err: unknown) => this.logger.warn({ err }, 'reservation sweep failed'))
        .finally(() => {
          this.running = false;
        });
    }, RESERVE_SWEEP_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.pass;
  }

  /** One scan: every lapsed reservation read becomes a destroy-queue record. */
  async sweep(): Promise<number> {
    const lapsedBy = this.clock.nowMs() - this.graceMs;
    const rows = await this.ns.db
      .iterator({
        gt: this.cursor || KEYS.reservedRange.gt,
        lt: KEYS.reservedRange.lt,
        limit: RESERVE_SCAN_RECORDS_MAX,
      })
      .all();
    this.cursor = rows.length < RESERVE_SCAN_RECORDS_MAX ? '' : rows[rows.length - 1]![0];
    let count = 0;
    for (const [, value] of rows) {
      const reserved = value as ReservedRecord;
      if (reserved.expiresAtMs > lapsedBy) continue;
      if (await abandonReserved(this.ns, reserved.ino, undefined, lapsedBy)) count++;
    }
    this.collected += count;
    if (count > 0) this.logger.info({ count }, 'lapsed inode reservations queued for destruction');
    return count;
  }
}
