// Node streams over a file handle. Backpressure: the Readable reads the next
// chunk only when its consumer asks (_read), the Writable's callback waits for
// the handle's write, which waits for write-behind budget.
import { Readable, Writable } from 'node:stream';
import type { StripeFileHandle } from './file-handle.js';

export function readStreamOf(
  open: () => Promise<StripeFileHandle>,
  opts: { start?: number; end?: number; chunkBytes: number; highWaterMark: number },
): Readable {
  let handle: StripeFileHandle | undefined;
  let position = opts.start ?? 0;
  return new Readable({
    highWaterMark: opts.highWaterMark,
    read(this: Readable) {
      (async () => {
        handle ??= await open();
        const endExclusive = Math.min(
          handle.size,
          opts.end === undefined ? Number.MAX_SAFE_INTEGER : opts.end + 1,
        );
        const length = Math.min(opts.chunkBytes, endExclusive - position);
        if (length <= 0) {
          await handle.close();
          this.push(null);
          return;
        }
        const buffer = Buffer.allocUnsafe(length);
        const { bytesRead } = await handle.read(buffer, 0, length, position);
        position += bytesRead;
        this.push(bytesRead === length ? buffer : buffer.subarray(0, bytesRead));
        if (bytesRead === 0) this.push(null);
      })().catch((err: unknown) => this.destroy(err as Error));
    },
    destroy(err, callback) {
      const h = handle;
      handle = undefined;
      if (!h) return callback(err);
      h.close().then(
        () => callback(err),
        (closeErr: unknown) => callback(err ?? (closeErr as Error)),
      );
    },
  });
}

export function writeStreamOf(open: () => Promise<StripeFileHandle>, highWaterMark: number): Writable {
  let handle: StripeFileHandle | undefined;
  return new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, callback) {
      (async () => {
        handle ??= await open();
        await handle.write(chunk);
      })().then(() => callback(), callback);
    },
    final(callback) {
      (async () => {
        handle ??= await open();
        await handle.close();
      })().then(() => callback(), callback);
    },
  });
}
