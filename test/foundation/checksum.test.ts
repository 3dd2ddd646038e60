// crc32c: stripefs's SSE4.2 addon (native/crc32c.c) is what runs on x86-64
// (npm run build compiles it), and it agrees with @node-rs/crc32 on every
// length around its lane sizes, at every alignment, when continued from a
// previous value, and on the standard check value; bad input is refused
// with a coded TypeError.

import { randomFillSync } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { checksumBackend, crc32c } from '../../common/checksum.js';

const reference = createRequire(import.meta.url)('@node-rs/crc32') as {
  crc32c: (data: Uint8Array, previous?: number) => number;
};
const ref = (data: Uint8Array, previous = 0) => reference.crc32c(data, previous) >>> 0;

describe('crc32c', () => {
  it('runs the SSE4.2 addon on x86-64', () => {
    if (process.arch !== 'x64') return;
    expect(checksumBackend()).toEqual({ name: 'stripefs-sse42' });
  });

  it('gives the standard check value', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(0))).toBe(0);
  });

  it('agrees with @node-rs/crc32 at every length, alignment and continuation', () => {
    const data = randomFillSync(Buffer.alloc(3 * 4096 * 3 + 999));
    for (let n = 0; n <= 1100; n++)
      for (const at of [0, 1, 5])
        if (crc32c(data.subarray(at, at + n)) !== ref(data.subarray(at, at + n)))
          expect.fail(`length ${n} at ${at}`);
    for (const n of [767, 768, 769, 12287, 12288, 12289, 3 * 12288 + 5, data.length - 3]) {
      const s = data.subarray(3, 3 + n);
      expect(crc32c(s), `length ${n}`).toBe(ref(s));
      const cut = Math.floor(n / 3);
      expect(crc32c(s.subarray(cut), crc32c(s.subarray(0, cut))), `length ${n} continued`).toBe(ref(s));
    }
  });

  it('refuses what is not a Uint8Array', () => {
    const bad = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return err as Error & { code?: string };
      }
      throw new Error('accepted bad input');
    };
    const e = bad(() => crc32c('text' as unknown as Uint8Array));
    expect(e).toBeInstanceOf(TypeError);
    if (checksumBackend().name === 'stripefs-sse42') {
      expect(e.code).toBe('ERR_INVALID_ARG_TYPE');
      expect(bad(() => crc32c(new Uint32Array(4) as unknown as Uint8Array)).code).toBe(
        'ERR_INVALID_ARG_TYPE',
      );
    }
  });
});
