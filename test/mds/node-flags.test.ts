// The MDS's Node flags (cli/process.ts, MDS_NODE_FLAGS) reach its process
// whoever starts it through startProcess (the launcher, the test and bench
// clusters): the running MDS's command line carries them before its script,
// and no other entry point gets them (the OSS's own: test/oss/node-flags.test.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MDS_NODE_FLAGS, nodeFlagsOf } from '../../cli/process.js';
import { startMds, stopMds, tempDir } from './helpers.js';

describe('MDS node flags', () => {
  it('go to the MDS entry point only, by any path to it', () => {
    expect(MDS_NODE_FLAGS.length).toBeGreaterThan(0);
    expect(nodeFlagsOf('dist/mds/main.js')).toEqual([...MDS_NODE_FLAGS]);
    expect(nodeFlagsOf('/opt/stripefs/dist/mds/main.js')).toEqual([...MDS_NODE_FLAGS]);
    for (const script of ['dist/cli/main.js', 'dist/mds/other.js', 'dist/s3/main.js'])
      expect(nodeFlagsOf(script), script).toEqual([]);
  });

  it('a started MDS runs with them before its script', async () => {
    const mds = await startMds(tempDir('node-flags'));
    try {
      const argv = readFileSync(`/proc/${mds.proc.child.pid}/cmdline`, 'latin1').split('\0');
      const script = argv.indexOf('dist/mds/main.js');
      expect(script).toBeGreaterThan(0);
      expect(argv.slice(1, script)).toEqual([...MDS_NODE_FLAGS]);
    } finally {
      await stopMds(mds);
    }
  });
});
