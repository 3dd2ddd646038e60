// Workloads of the fault suite: seeded files written through the real client,
// each kept as a local copy, and a checker that compares every byte. The seed
// is printed once per file and STRIPEFS_SEED replays it.
import type { Layout, StripeClient } from '../../client/index.js';
import { type Random, seededRandom, seedFromEnv } from '../../common/random.js';
import { seededBytes } from '../helpers/clients.js';
import { codeOf, settle } from '../helpers/errors.js';

export function suiteSeed(name: string): number {
  const seed = seedFromEnv();
  console.log(`${name} seed=${seed} (replay with STRIPEFS_SEED=${seed})`);
  return seed;
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
    const made = await codeOf(client.mkdir(dir, { recursive: true }));
    if (made !== 'OK' && made !== 'NS_EXISTS') throw new Error(`mkdir ${dir}: ${made}`);
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
      if (!got.ok) bad.push(`${path}: ${got.code} ${got.err.message}`);
      else if (!got.value.equals(expected))
        bad.push(`${path}: ${got.value.length} bytes differ from ${expected.length}`);
    }
    return bad;
  }
}
