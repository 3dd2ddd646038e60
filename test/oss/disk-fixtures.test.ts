// The OST folders in test/fixtures/disk/, written by an earlier commit (see
// test/fixtures/disk/manifest.json's writtenBy and scripts/make-disk-fixtures.mjs), open with
// today's code: every object reads back byte for byte with the size, version,
// mtime and PG it was written with, and each PG lists exactly its objects. A
// change to the object files or the index layout fails here: it needs a
// migration, and the fixtures are regenerated only with one.
import { createHash } from 'node:crypto';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openOst } from '../../oss/store/index.js';
import { tempDir } from './helpers.js';

const FIXTURES = 'test/fixtures/disk';

interface FixtureObject {
  objectId: string;
  poolId: number;
  pg: number;
  size: number;
  version: number;
  mtimeMs: number;
  sha256: string;
}

interface Manifest {
  writtenBy: { commit: string };
  osts: { oss: string; ost: string; id: number; objects: FixtureObject[] }[];
}

const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as Manifest;
const tmp = tempDir('stripefs-disk-fixtures-');
afterAll(() => tmp.remove());

describe(`OST folders written by ${manifest.writtenBy.commit.slice(0, 12)}`, () => {
  it('holds objects on every OST', () => {
    expect(manifest.osts.length).toBe(3);
    expect(manifest.osts.every((o) => o.objects.length > 0)).toBe(true);
  });

  for (const fixture of manifest.osts) {
    it(`${fixture.oss}/${fixture.ost} opens and serves every object byte for byte`, async () => {
      // A copy: opening an index rewrites its log.
      const dir = join(tmp.dir, fixture.oss, fixture.ost);
      cpSync(join(FIXTURES, fixture.oss, fixture.ost), dir, { recursive: true });
      const ost = await openOst({ dir, name: fixture.ost, capacityBytes: 1 << 30, fsync: true });
      try {
        expect(ost.id).toBe(fixture.id);
        expect(ost.usage().objectCount).toBe(fixture.objects.length);
        expect(ost.usage().usedBytes).toBe(fixture.objects.reduce((sum, o) => sum + o.size, 0));
        for (const want of fixture.objects) {
          const meta = await ost.stat(want.objectId);
          expect(meta, want.objectId).toEqual({
            size: want.size,
            version: want.version,
            mtimeMs: want.mtimeMs,
            poolId: want.poolId,
            pg: want.pg,
          });
          const hash = createHash('sha256');
          let bytes = 0;
          for await (const span of ost.readSpans(want.objectId, 0, want.size + 1, () => undefined)) {
            for (const piece of span) {
              hash.update(piece.data);
              bytes += piece.data.length;
            }
            span[span.length - 1]?.release?.();
          }
          expect(bytes, want.objectId).toBe(want.size);
          expect(hash.digest('hex'), want.objectId).toBe(want.sha256);
          const listed = await ost.list(want.poolId, want.pg, '', 100);
          const inPg = fixture.objects.filter((o) => o.poolId === want.poolId && o.pg === want.pg);
          expect(listed.objects.map((o) => o.objectId).sort()).toEqual(inPg.map((o) => o.objectId).sort());
        }
      } finally {
        await ost.close();
      }
    });
  }
});
