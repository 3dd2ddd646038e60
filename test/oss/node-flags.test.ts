// The OSS's Node flags (cli/process.ts, OSS_NODE_FLAGS) reach its process
// whoever starts it through startProcess (the launcher, the test and bench
// clusters): the running OSS's command line carries them before its script.
// Without them V8 sized the OSS's old generation by its small live heap and
// ran a mark-compact about every 2 s per OSS under 64 KiB writes
// (docs/ARCHITECTURE.md, "The OSS's old generation starts at 128 MiB too").
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeFlagsOf, OSS_NODE_FLAGS } from '../../cli/process.js';
import { useOss } from './helpers.js';

describe('OSS node flags', () => {
  const h = useOss('stripefs-oss-flags-');

  it('go to the OSS entry point, by any path to it', () => {
    expect(OSS_NODE_FLAGS).toContain('--initial-old-space-size=128');
    expect(nodeFlagsOf('dist/oss/main.js')).toEqual([...OSS_NODE_FLAGS]);
    expect(nodeFlagsOf('/opt/stripefs/dist/oss/main.js')).toEqual([...OSS_NODE_FLAGS]);
    expect(nodeFlagsOf('dist\\oss\\main.js')).toEqual([...OSS_NODE_FLAGS]);
  });

  it('a started OSS runs with them before its script', () => {
    const argv = readFileSync(`/proc/${h.oss.proc.child.pid}/cmdline`, 'latin1').split('\0');
    const script = argv.indexOf('dist/oss/main.js');
    expect(script).toBeGreaterThan(0);
    expect(argv.slice(1, script)).toEqual([...OSS_NODE_FLAGS]);
  });
});
