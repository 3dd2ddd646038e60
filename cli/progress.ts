// Progress for long transfers: a bar with throughput on a terminal, a single
// summary line otherwise (logs and pipes stay readable).
import { formatBytes, formatRate } from './format.js';

const REDRAW_MS = 200;
const BAR_WIDTH = 30;
/** Transfers smaller than this get no progress output. */
export const PROGRESS_MIN_BYTES = 8 * 1024 * 1024;

export class Progress {
  private done = 0;
  private lastDrawMs = 0;
  private readonly startedMs = performance.now();
  private readonly tty: boolean;

  constructor(
    private readonly label: string,
    private readonly totalBytes: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.tty = Boolean(stream.isTTY) && totalBytes >= PROGRESS_MIN_BYTES;
  }

  add(bytes: number): void {
    this.done += bytes;
    const now = performance.now();
    if (this.tty && now - this.lastDrawMs >= REDRAW_MS) {
      this.lastDrawMs = now;
      this.draw(now);
    }
  }

  private rate(now: number): number {
    return this.done / Math.max((now - this.startedMs) / 1000, 1e-3);
  }

  private draw(now: number): void {
    const fraction = this.totalBytes > 0 ? Math.min(1, this.done / this.totalBytes) : 1;
    const filled = Math.round(fraction * BAR_WIDTH);
    const bar = `${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}`;
    this.stream.write(
      `\r${this.label} [${bar}] ${Math.round(fraction * 100)}% ${formatBytes(this.done)} ${formatRate(this.rate(now))}  `,
    );
  }

  /** Final line: bytes, seconds and throughput (always printed for large transfers). */
  finish(): { bytes: number; seconds: number; bytesPerSecond: number } {
    const now = performance.now();
    const seconds = (now - this.startedMs) / 1000;
    const summary = { bytes: this.done, seconds, bytesPerSecond: this.rate(now) };
    if (this.tty) this.draw(now);
    if (this.done >= PROGRESS_MIN_BYTES) {
      this.stream.write(
        `${this.tty ? '\n' : ''}${this.label}: ${formatBytes(this.done)} in ${seconds.toFixed(2)} s (${formatRate(summary.bytesPerSecond)})\n`,
      );
    }
    return summary;
  }
}
