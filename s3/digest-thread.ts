// The MD5 of a large request body (its ETag), and its SHA-256 when the
// signature covers one, computed on a thread of their own: the MD5 alone cost
// the gateway's event loop about as much CPU as receiving and storing the
// bytes, and on the event loop it delays both. The body is gathered into
// shared memory (s3/gather.ts) and the thread reads each gathered buffer in
// place while the event loop lends the same buffer to the client library.
// One thread serves every body; a body's buffers are hashed in the order they
// were handed over (a worker takes its messages in order).
import { Worker } from 'node:worker_threads';

export type DigestAlgorithm = 'md5' | 'sha256';

/** The thread: a hash state per body id, updated from shared memory, answered per message. */
const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const states = new Map();
parentPort.on('message', (m) => {
  try {
    if (m.op === 'update') {
      let hashes = states.get(m.body);
      if (!hashes) states.set(m.body, (hashes = m.algorithms.map((a) => createHash(a))));
      const view = new Uint8Array(m.memory, m.offset, m.length);
      for (const h of hashes) h.update(view);
      parentPort.postMessage({ ticket: m.ticket });
    } else if (m.op === 'digest') {
      const hashes = states.get(m.body) ?? (m.updates === 0 ? m.algorithms.map((a) => createHash(a)) : undefined);
      states.delete(m.body);
      if (!hashes) throw new Error('the state of body ' + m.body + ' is lost');
      parentPort.postMessage({ ticket: m.ticket, digests: hashes.map((h) => h.digest()) });
    } else states.delete(m.body);
  } catch (err) {
    parentPort.postMessage({ ticket: m.ticket, error: String(err && err.message || err) });
  }
});
`;

interface Waiter {
  resolve: (answer: { digests?: Uint8Array[] }) => void;
  reject: (err: Error) => void;
}

let thread: Worker | undefined;
const waiters = new Map<number, Waiter>();
let nextTicket = 1;
let nextBody = 1;
/** Counts the threads started: a body whose thread died (its state with it) fails. */
let generation = 0;

function failAll(err: Error): void {
  thread = undefined;
  for (const waiter of waiters.values()) waiter.reject(err);
  waiters.clear();
}

function started(): Worker {
  if (thread) return thread;
  const worker = new Worker(THREAD_SOURCE, { eval: true });
  // The gateway's lifetime is its server's; an idle digest thread never keeps the process up.
  worker.unref();
  worker.on('message', (answer: { ticket: number; digests?: Uint8Array[]; error?: string }) => {
    const waiter = waiters.get(answer.ticket);
    if (!waiter) return;
    waiters.delete(answer.ticket);
    if (answer.error !== undefined) waiter.reject(new Error(`digest thread: ${answer.error}`));
    else waiter.resolve(answer);
  });
  worker.on('error', (err) => {
    if (thread === worker) failAll(err);
  });
  worker.on('exit', (code) => {
    if (thread === worker) failAll(new Error(`the digest thread exited (${code})`));
  });
  thread = worker;
  generation++;
  return worker;
}

function ask(
  message: Record<string, unknown>,
  onThread: { generation?: number },
): Promise<{ digests?: Uint8Array[] }> {
  const worker = started();
  onThread.generation ??= generation;
  if (onThread.generation !== generation)
    return Promise.reject(new Error('the digest thread was restarted in the middle of a body'));
  const ticket = nextTicket++;
  return new Promise((resolve, reject) => {
    waiters.set(ticket, { resolve, reject });
    worker.postMessage({ ...message, ticket });
  });
}

/** The digests of one body, fed in order from buffers in shared memory. */
export class ThreadDigest {
  private readonly body = nextBody++;
  private finished = false;
  /** Every update's answer: the digests wait for them, and fail if one failed. */
  private readonly updates: Promise<unknown>[] = [];
  private readonly onThread: { generation?: number } = {};

  constructor(private readonly algorithms: readonly DigestAlgorithm[]) {}

  /**
   * Hands over `data` (a view of a SharedArrayBuffer); settles once the thread has read it, so the
   * memory may be reused. Rejects if the thread failed.
   */
  async update(data: Buffer): Promise<void> {
    if (!(data.buffer instanceof SharedArrayBuffer))
      throw new Error('the digest thread reads shared memory only');
    const answered = ask(
      {
        op: 'update',
        body: this.body,
        algorithms: this.algorithms,
        memory: data.buffer,
        offset: data.byteOffset,
        length: data.length,
      },
      this.onThread,
    );
    this.updates.push(answered);
    await answered;
  }

  /** The digests, in the order of the algorithms, of everything handed over. */
  async digests(): Promise<Buffer[]> {
    this.finished = true;
    await Promise.all(this.updates);
    const answer = await ask(
      { op: 'digest', body: this.body, algorithms: this.algorithms, updates: this.updates.length },
      this.onThread,
    );
    return (answer.digests ?? []).map((d) => Buffer.from(d.buffer, d.byteOffset, d.byteLength));
  }

  /** A body given up on: the thread forgets its state (queued updates are still read first). */
  discard(): void {
    if (this.finished || !thread) return;
    this.finished = true;
    thread.postMessage({ op: 'discard', body: this.body, ticket: 0 });
  }
}
