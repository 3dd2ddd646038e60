// Workloads of the fault suite: seeded files written through the real client,
// each kept as a local copy, and a checker that compares every byte. The seed
// is printed once per file and STRIPEFS_SEED replays it.
import { type Layout, StripeClient } from '../../client/index.js';
import { StripeError } from '../../common/errors.js';
import { type Random, seededRandom, seedFromEnv } from '../../common/random.js';

export function suiteSeed(name: string): number {
  const seed = seedFromEnv();
  console.log(`${name} seed=${seed} (replay with STRIPEFS_SEED=${seed})`);
  return seed;
}

/** n seeded bytes (xorshift32 words). */
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

/** A client that caches nothing (every read reaches the OSTs) and gives up on an OST after `timeoutMs`. */
export function connectReader(mdsAddress: string, seed: number, timeoutMs = 2_000): Promise<StripeClient> {
  return StripeClient.connect({
    mds: mdsAddress,
    seed,
    limits: { cacheBytesMax: 0, readaheadTotalBytesMax: 0, requestTimeoutMs: timeoutMs },
  });
}

export function codeOf(err: unknown): string {
  return err instanceof StripeError ? err.code : `not a StripeError: ${String(err)}`;
}

/** Settles a promise into its value or its error. */
export async function settle<T>(
  work: Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; err: unknown }> {
  try {
    return { ok: true, value: await work };
  } catch (err) {
    return { ok: false, err };
  }
}

/** The files a test wrote and was told were written (acknowledged closes), with their bytes. */
export class Workload {
  readonly files = new Map<string, Buffer>();
  readonly random: Random;
  private serial = 0;

  constructor(
    readonly seed: number,
    readonly sizeMaxBytes = 1 << 20,
  ) {
    this.random = seededRandom(seed);
  }

  /** Seeded contents of the next file: sizes from 0 to sizeMaxBytes, edges included. */
  nextContents(): Buffer {
    const n = this.serial++;
    const edges = [0, 1, 65_535, 65_536, 65_537];
    const size = n < edges.length ? (edges[n] as number) : this.random.int(this.sizeMaxBytes + 1);
    return seededBytes(size, (this.seed + n * 7919) >>> 0);
  }

  /** Writes one file; it is remembered only once its close was acknowledged. */
  async write(
    client: StripeClient,
    path: string,
    layout?: Layout,
    data = this.nextContents(),
  ): Promise<void> {
    await client.writeFile(path, data, layout ? { layout } : {});
    this.files.set(path, data);
  }

  /** Writes `count` files under `dir`, `parallel` at a time. */
  async writeMany(
    client: StripeClient,
    dir: string,
    count: number,
    layout?: Layout,
    parallel = 4,
  ): Promise<void> {
    await client.mkdir(dir, { recursive: true }).catch((err: unknown) => {
      if (codeOf(err) !== 'NS_EXISTS') throw err;
    });
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < count) {
        const i = next++;
        await this.write(client, `${dir}/f${String(i).padStart(4, '0')}`, layout);
      }
    };
    await Promise.all(Array.from({ length: parallel }, worker));
  }

  /** Reads every acknowledged file back; returns the paths that differ (or failed, with their code). */
  async verify(client: StripeClient, paths: Iterable<string> = this.files.keys()): Promise<string[]> {
    const bad: string[] = [];
    for (const path of paths) {
      const expected = this.files.get(path) as Buffer;
      const got = await settle(client.readFile(path));
      if (!got.ok) bad.push(`${path}: ${codeOf(got.err)} ${(got.err as Error).message}`);
      else if (!got.value.equals(expected))
        bad.push(`${path}: ${got.value.length} bytes differ from ${expected.length}`);
    }
    return bad;
  }
}
