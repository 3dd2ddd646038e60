// The semaphore every fan-out goes through: at most `limit` tasks at once, the
// waiters let in in arrival order however many there are (the queue is
// compacted as it drains), and a release without an acquire refused.
import { describe, expect, it } from 'vitest';
import { Semaphore } from '../../common/semaphore.js';

describe('semaphore', () => {
  it('runs at most `limit` at once and lets 5,000 waiters in in arrival order', async () => {
    const gate = new Semaphore(3);
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const task = async (i: number) => {
      started.push(i);
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
    };
    const all = Array.from({ length: 5_000 }, (_, i) => gate.run(() => task(i)));
    expect(gate.inUse).toBe(3);
    await Promise.all(all);
    expect(most).toBe(3);
    expect(started).toEqual(Array.from({ length: 5_000 }, (_, i) => i));
    expect([gate.inUse, gate.waiting]).toEqual([0, 0]);
  });

  it('counts waiters, keeps order across a drained queue, and refuses a release too many', async () => {
    const gate = new Semaphore(1);
    await gate.acquire();
    const order: string[] = [];
    const a = gate.acquire().then(() => order.push('a'));
    const b = gate.acquire().then(() => order.push('b'));
    expect(gate.waiting).toBe(2);
    gate.release();
    await a;
    gate.release();
    await b;
    const c = gate.acquire().then(() => order.push('c'));
    gate.release();
    await c;
    expect(order).toEqual(['a', 'b', 'c']);
    gate.release();
    expect(() => gate.release()).toThrow(/released more than acquired/);
  });
});
