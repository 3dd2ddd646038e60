// Parity encoding off the main thread: a small pool of worker threads, each
// with its own wasm codec (common/erasure.ts). A stripe buffer is transferred
// to a worker and back (no copy): while a worker encodes, the main thread goes
// on filling the next stripe and moving bytes to the OSSs. Small stripes, and
// buffers that share their memory with others (not transferable), are encoded
// on the calling thread. `ecEncodeWorkers: 0` turns the pool off.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { encodeParity } from '../common/erasure.js';

/** Stripes below this are encoded inline: a worker round trip costs more than the encode. */
export const EC_WORKER_MIN_BYTES = 256 * 1024;

// The worker is plain CommonJS evaluated from this string, so it runs the
// same whether the client is loaded from dist/ or from source; it encodes with
// the wasm package as common/erasure.ts does (one instance per shape, a trap
// retried once on a fresh instance).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { ReedSolomonErasure } = require(workerData.packageMain);
const wasm = new WebAssembly.Module(readFileSync(workerData.wasmFile));
const codecs = new Map();
function codec(key) {
  let c = codecs.get(key);
  if (!c) {
    c = new ReedSolomonErasure(new WebAssembly.Instance(wasm).exports);
    codecs.set(key, c);
    if (codecs.size > 8) codecs.delete(codecs.keys().next().value);
  }
  return c;
}
parentPort.on('message', ({ id, buffer, k, m }) => {
  const shards = new Uint8Array(buffer);
  const key = k + '+' + m + ':' + shards.length;
  let error;
  try {
    let result;
    try {
      result = codec(key).encode(shards, k, m);
    } catch (err) {
      if (!(err instanceof WebAssembly.RuntimeError)) throw err;
      codecs.delete(key);
      result = codec(key).encode(shards, k, m);
    }
    if (result !== 0) error = 'reed-solomon encode failed with code ' + result;
  } catch (err) {
    error = String((err && err.message) || err);
  }
  parentPort.postMessage({ id, buffer, error }, [buffer]);
});
`;

function workerData(): { packageMain: string; wasmFile: string } {
  const require = createRequire(import.meta.url);
  const packageMain = require.resolve('@subspace/reed-solomon-erasure.wasm');
  return { packageMain, wasmFile: join(dirname(packageMain), 'reed_solomon_erasure_bg.wasm') };
}

interface Job {
  resolve: (buffer: ArrayBuffer) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  jobs: Map<number, Job>;
}

export class EcEncoder {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private turn = 0;
  /** Stripes encoded by workers and inline (stats and tests). */
  readonly counts = { worker: 0, inline: 0 };

  constructor(workers: number) {
    const data = workers > 0 ? workerData() : undefined;
    for (let i = 0; i < workers; i++) {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: data });
      worker.unref();
      const slot: Slot = { worker, jobs: new Map() };
      worker.on('message', (msg: { id: number; buffer: ArrayBuffer; error?: string | undefined }) => {
        const job = slot.jobs.get(msg.id);
        slot.jobs.delete(msg.id);
        if (!job) return;
        if (msg.error) job.reject(new Error(`ec encode worker: ${msg.error}`));
        else job.resolve(msg.buffer);
      });
      worker.on('error', (err) => {
        for (const job of slot.jobs.values()) job.reject(err);
        slot.jobs.clear();
        const at = this.slots.indexOf(slot);
        if (at >= 0) this.slots.splice(at, 1); // later stripes go to the others, or inline
      });
      this.slots.push(slot);
    }
  }

  /**
   * Fills the last m shards of `shards` with parity, in place or not: the
   * result is the buffer to use from now on (`shards` itself may be detached).
   */
  async encode(shards: Buffer, k: number, m: number): Promise<Buffer> {
    const transferable =
      shards.byteOffset === 0 &&
      shards.byteLength === shards.buffer.byteLength &&
      shards.buffer instanceof ArrayBuffer;
    if (this.slots.length === 0 || shards.length < EC_WORKER_MIN_BYTES || !transferable) {
      encodeParity(shards, k, m);
      this.counts.inline++;
      return shards;
    }
    const slot = this.slots[this.turn++ % this.slots.length] as Slot;
    const id = this.nextId++;
    const buffer = shards.buffer as ArrayBuffer;
    const done = new Promise<ArrayBuffer>((resolve, reject) => slot.jobs.set(id, { resolve, reject }));
    slot.worker.postMessage({ id, buffer, k, m }, [buffer]);
    const back = await done;
    this.counts.worker++;
    return Buffer.from(back);
  }

  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
