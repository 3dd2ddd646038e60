// Clients and data the tests share: a reader that caches nothing, seeded
// bytes, an overwrite through a handle, and the bytes a client fetched.
import { type ClientLimits, StripeClient } from '../../client/index.js';

/**
 * A client that caches nothing, so every read reaches the OSTs (what fault and
 * recovery tests check); `limits` adds to that (a short request timeout, say).
 */
export function connectReader(
  mdsAddress: string,
  seed: number,
  limits: Partial<ClientLimits> = {},
): Promise<StripeClient> {
  return StripeClient.connect({
    mds: mdsAddress,
    seed,
    limits: { cacheBytesMax: 0, readaheadTotalBytesMax: 0, ...limits },
  });
}

/** Writes `data` at `at` into an existing file and closes it (the close is the commit). */
export async function overwrite(client: StripeClient, path: string, data: Buffer, at = 0): Promise<void> {
  const handle = await client.open(path, 'r+');
  try {
    await handle.write(data, 0, data.length, at);
  } finally {
    await handle.close();
  }
}

/** n pseudo-random bytes from a seed (xorshift32 over 32-bit words: fast enough for hundreds of MiB). */
export function seededBytes(n: number, seed: number): Buffer {
  const words = new Uint32Array(Math.ceil(n / 4));
  let x = (seed ^ 0x9e3779b9) >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }
  return Buffer.from(words.buffer, 0, n);
}

/** Bytes a client fetched from the OSSs, summed over every OST (its `stats()`, or their JSON form). */
export function fetchedBytes(stats: { bytesReadPerOst: Record<string | number, number> }): number {
  return Object.values(stats.bytesReadPerOst).reduce((a, b) => a + b, 0);
}
