// Pull-style reads over a socket with backpressure: the socket is paused
// while more than highWaterBytes are buffered and nobody is reading, so a
// fast sender can never make the receiver hold more than that.
import type { Socket } from 'node:net';
import { StripeError } from '../errors.js';

export class SocketReader {
  private readonly chunks: Buffer[] = [];
  private bufferedBytes = 0;
  private waiter: (() => void) | undefined;
  private ended: StripeError | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly highWaterBytes: number,
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.bufferedBytes += chunk.length;
      if (this.bufferedBytes > this.highWaterBytes) socket.pause();
      this.wake();
    });
    const finish = (err?: Error): void => {
      this.ended ??= new StripeError(
        'REQ_UNAVAILABLE',
        `bulk connection closed${err ? `: ${err.message}` : ''}`,
      );
      this.wake();
    };
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    socket.on('error', (err) => finish(err));
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  private async fill(minBytes: number): Promise<void> {
    while (this.bufferedBytes < minBytes) {
      if (this.ended) throw this.ended;
      if (this.socket.isPaused()) this.socket.resume();
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
      });
    }
  }

  /** True when no bytes are waiting (the peer has sent nothing more yet). */
  get idle(): boolean {
    return this.bufferedBytes === 0;
  }

  /** Exactly n bytes (copied only when they span socket chunks). */
  async readExact(n: number): Promise<Buffer> {
    if (n === 0) return Buffer.alloc(0);
    await this.fill(n);
    const first = this.chunks[0]!;
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let copied = 0;
      while (copied < n) {
        const chunk = this.chunks[0]!;
        const take = Math.min(chunk.length, n - copied);
        chunk.copy(out, copied, 0, take);
        copied += take;
        if (take === chunk.length) this.chunks.shift();
        else this.chunks[0] = chunk.subarray(take);
      }
    }
    this.bufferedBytes -= n;
    if (this.bufferedBytes <= this.highWaterBytes && this.socket.isPaused()) this.socket.resume();
    return out;
  }

  /** Copies exactly n bytes into target at targetOffset, without an intermediate buffer. */
  async readInto(target: Buffer, targetOffset: number, n: number): Promise<void> {
    let copied = 0;
    while (copied < n) {
      await this.fill(1);
      const chunk = this.chunks[0]!;
      const take = Math.min(chunk.length, n - copied);
      chunk.copy(target, targetOffset + copied, 0, take);
      copied += take;
      this.bufferedBytes -= take;
      if (take === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(take);
    }
    if (this.bufferedBytes <= this.highWaterBytes && this.socket.isPaused()) this.socket.resume();
  }
}
