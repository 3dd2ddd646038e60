// Shared by the checkpoint tests: seeded parts of chosen sizes, as buffers or
// as streams cut into seeded chunk sizes, a byte-exact comparison, and a
// cluster per suite.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect } from 'vitest';
import { StripeClient } from '../../client/index.js';
import { StripeError } from '../../common/errors.js';
import type { Random } from '../../common/random.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, startCluster } from '../helpers/cluster.js';

export const KiB = 1024;
export const MiB = 1024 * KiB;

export interface PartSpec {
  name: string;
  data: Buffer;
  /** Handed to the save as a stream of this many chunks (none: as a buffer). */
  streamChunks?: number;
}

/** Part sizes around the block size `unit`: 0, 1, unit-1, unit, unit+1 and random ones up to `maxBytes`. */
export function seededParts(
  random: Random,
  count: number,
  unit: number,
  maxBytes: number,
  seed: number,
): PartSpec[] {
  const edges = [0, 1, unit - 1, unit, unit + 1, 2 * unit, 3 * unit - 7];
  return Array.from({ length: count }, (_, i) => {
    const bytes = i < edges.length ? (edges[i] as number) : random.int(maxBytes + 1);
    const spec: PartSpec = { name: `layer.${i}/weight`, data: seededBytes(bytes, seed + i) };
    if (random.int(3) === 0) spec.streamChunks = 1 + random.int(5);
    return spec;
  });
}

/** A stream yielding `data` in `chunks` pieces of seeded, uneven sizes. */
export function streamOf(data: Buffer, chunks: number, random: Random): Readable {
  const cuts = Array.from({ length: chunks - 1 }, () => random.int(data.length + 1)).sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let at = 0;
  for (const cut of [...cuts, data.length]) {
    pieces.push(data.subarray(at, cut));
    at = cut;
  }
  return Readable.from(pieces.filter((p) => p.length > 0));
}

export function partsOf(specs: readonly PartSpec[], random: Random): [string, Uint8Array | Readable][] {
  return specs.map((s) => [s.name, s.streamChunks ? streamOf(s.data, s.streamChunks, random) : s.data]);
}

export function expectSameParts(loaded: Map<string, Buffer>, specs: readonly PartSpec[]): void {
  expect([...loaded.keys()].sort()).toEqual(specs.map((s) => s.name).sort());
  for (const s of specs) {
    const got = loaded.get(s.name) as Buffer;
    expect(got.length, `${s.name} length`).toBe(s.data.length);
    expect(got.equals(s.data), `${s.name} bytes`).toBe(true);
  }
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface SuiteCluster {
  cluster: Cluster;
  client: StripeClient;
  /** A local temporary folder of the suite's own (data files, local staging). */
  folder: string;
}

/** Starts a cluster, a client and a local folder before the suite's tests and stops them after. */
export function suiteCluster(seed: number): SuiteCluster {
  const env = {} as SuiteCluster;
  beforeAll(async () => {
    env.cluster = await startCluster();
    env.client = await StripeClient.connect({
      mds: env.cluster.mdsAddress,
      seed,
      limits: { cacheBytesMax: 32 * MiB },
    });
    env.folder = mkdtempSync(join(tmpdir(), 'stripefs-ckpt-'));
  });
  afterAll(async () => {
    await env.client?.close();
    await env.cluster?.stop();
    if (env.folder) rmSync(env.folder, { recursive: true, force: true });
  });
  return env;
}

export async function rejectionOf(work: Promise<unknown>): Promise<StripeError | undefined> {
  try {
    await work;
    return undefined;
  } catch (err) {
    if (err instanceof StripeError) return err;
    throw err;
  }
}
