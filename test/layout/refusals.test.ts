// The layouts stripefs refuses, each with its code, and proof that a real MDS
// and the client refuse exactly the same ones. Every text goes to a real MDS
// as text (SetXattr of user.stripefs.layout on a directory) and to its
// configuration reader (mds.defaultLayout; a real MDS is started with three).
// A text that reads but is impossible is also sent as it reads (wire zeros
// and all) to the MDS's Mkdir, SetLayout and Create.
// Accepted texts must come back from the MDS as the client parsed them, and the
// map check must agree between the MDS's Create and the client's copy of the map.
import { describe, expect, it } from 'vitest';
import { call, type ErrorCode } from '../../common/index.js';
import { checkLayoutOnMap, formatLayout, parseLayout, scanLayout } from '../../layout/index.js';
import { configuredDefault } from '../../mds/layout.js';
import type { Layout__Output } from '../../proto/index.js';
import { layoutFromWire, layoutToWire, mapViewFromWire, wholeLayoutFromWire } from '../../wire/index.js';
import { codeOf } from '../helpers/errors.js';
import { registerOss, startMds, stopMds, tempDir } from '../mds/helpers.js';

/** Text -> the code both the client and the MDS refuse it with. */
const REFUSED_TEXT: [string, ErrorCode][] = [
  ['', 'LAYOUT_INVALID'],
  ['mirror:2', 'LAYOUT_INVALID'],
  ['RAID0:4', 'LAYOUT_INVALID'],
  ['raid0:', 'LAYOUT_INVALID'],
  ['raid0:x', 'LAYOUT_INVALID'],
  ['raid0:0', 'LAYOUT_INVALID'],
  ['raid0:257', 'LAYOUT_INVALID'],
  ['raid0:300', 'LAYOUT_INVALID'],
  ['raid0:1:3M', 'LAYOUT_INVALID'],
  ['raid0:1:32K', 'LAYOUT_INVALID'],
  ['raid0:1:128M', 'LAYOUT_INVALID'],
  ['raid0:1:0K', 'LAYOUT_INVALID'],
  ['raid0:1:9999999G', 'LAYOUT_INVALID'],
  ['raid0:4:host', 'LAYOUT_INVALID'],
  ['raid0:4:1M:2', 'LAYOUT_INVALID'],
  ['raid0:4:65536', 'LAYOUT_AMBIGUOUS'],
  ['raid0:65536', 'LAYOUT_AMBIGUOUS'],
  ['replicated:0:host', 'LAYOUT_INVALID'],
  ['replicated:33:host', 'LAYOUT_INVALID'],
  ['replicated:2:bad/name', 'LAYOUT_INVALID'],
  ['replicated:2:4host', 'LAYOUT_INVALID'],
  ['replicated:3:host:1M:2', 'LAYOUT_INVALID'],
  ['replicated:3:host:65536', 'LAYOUT_AMBIGUOUS'],
  ['replicated:3:host:2:65536', 'LAYOUT_AMBIGUOUS'],
  ['ec', 'LAYOUT_INVALID'],
  ['ec:host', 'LAYOUT_INVALID'],
  ['ec:4-2:host', 'LAYOUT_INVALID'],
  ['ec:0+2:host', 'LAYOUT_INVALID'],
  ['ec:4+0:host', 'LAYOUT_INVALID'],
  ['ec:30+3:host', 'LAYOUT_INVALID'],
  ['ec:4+2:host:1M:host', 'LAYOUT_INVALID'],
  ['ec:4+2:host:4', 'LAYOUT_AMBIGUOUS'],
  ['ec:4+2:host:65536', 'LAYOUT_AMBIGUOUS'],
  ['mdt:64K,raid0:4', 'LAYOUT_INVALID'],
  ['raid0:4@1G', 'LAYOUT_INVALID'],
  ['dom:64K', 'LAYOUT_INVALID'],
  ['dom:6K,raid0', 'LAYOUT_INVALID'],
  ['dom:0K,raid0', 'LAYOUT_INVALID'],
  ['dom:2M,raid0', 'LAYOUT_INVALID'],
  ['dom:65536,raid0', 'LAYOUT_AMBIGUOUS'],
  ['dom:host,raid0', 'LAYOUT_INVALID'],
  ['dom:64K:8K,raid0', 'LAYOUT_INVALID'],
  ['raid0,dom:64K', 'LAYOUT_INVALID'],
  ['dom:64K,dom:64K,raid0', 'LAYOUT_INVALID'],
  ['dom:64K,raid0,raid0', 'LAYOUT_INVALID'],
  ['dom:64K,raid0:300', 'LAYOUT_INVALID'],
];

/** Wire layouts no text can say (zeros, fields of another pattern), refused alike. */
const REFUSED_WIRE: [string, Layout__Output][] = [
  ['no pattern, a count', wire({ pattern: 'LAYOUT_PATTERN_UNSPECIFIED', stripeCount: 4 })],
  ['raid0 with replicas', wire({ pattern: 'LAYOUT_PATTERN_RAID0', replicas: 3 })],
  ['raid0 with a failure domain', wire({ pattern: 'LAYOUT_PATTERN_RAID0', failureDomain: 'host' })],
  ['ec with a stripe count', wire({ pattern: 'LAYOUT_PATTERN_EC', k: 4, m: 2, stripeCount: 2 })],
  ['ec without m', wire({ pattern: 'LAYOUT_PATTERN_EC', k: 4 })],
  ['replicated with k', wire({ pattern: 'LAYOUT_PATTERN_REPLICATED', replicas: 2, k: 1 })],
  ['dom bytes not a multiple of 4K', wire({ pattern: 'LAYOUT_PATTERN_RAID0', domBytes: 5000 })],
  ['dom bytes over the maximum', wire({ pattern: 'LAYOUT_PATTERN_RAID0', domBytes: 2 * 1024 * 1024 })],
  ['dom bytes and no pattern', wire({ pattern: 'LAYOUT_PATTERN_UNSPECIFIED', domBytes: 65536 })],
];

const ACCEPTED_TEXT = [
  'raid0',
  'raid0:4',
  'raid0:4:64K',
  'replicated',
  'replicated:3:host:4',
  'replicated:3:host:1M',
  'replicated:2:rack:8:4M',
  'ec:4+2',
  'ec:8+3:rack:4m',
  'dom:64K,raid0',
  'dom:4K,replicated:2:host',
  'dom:1M,ec:4+2:host:64K',
];

/** Map checks on 3 hosts (2 OSTs each) in 2 racks. */
const MAP_CHECKED = [
  'raid0:6',
  'raid0:7',
  'replicated:3:host',
  'replicated:4:host',
  'replicated:2:rack',
  'ec:2+1:rack',
  'ec:1+1:rack',
  'replicated:1:row',
];

function wire(fields: Partial<Layout__Output>): Layout__Output {
  return {
    pattern: 'LAYOUT_PATTERN_UNSPECIFIED',
    stripeSize: 0,
    stripeCount: 0,
    replicas: 0,
    k: 0,
    m: 0,
    failureDomain: '',
    poolId: 0,
    domBytes: 0,
    ...fields,
  };
}

/** The code an MDS started with this default layout stops with, read from what it printed. */
async function mdsStartCode(text: string): Promise<string> {
  const dir = tempDir('layout-default');
  try {
    const mds = await startMds(dir, { STRIPEFS_MDS_DEFAULT_LAYOUT: text });
    await stopMds(mds);
    return 'OK';
  } catch (err) {
    const code = /code: '([A-Z_]+)'/.exec(String(err))?.[1];
    if (!code) throw err;
    return code;
  }
}

describe('layout refusals', () => {
  it('every refused text is refused by the client parser with its code, and the grammar names the form', async () => {
    for (const [text, code] of REFUSED_TEXT) expect(await codeOf(() => parseLayout(text)), text).toBe(code);
    expect(() => parseLayout('raid0:4:65536')).toThrow(/write 64K/);
    expect(() => parseLayout('ec:4+2:host:2')).toThrow(/ec has no stripe count/);
  });

  it('a real MDS refuses exactly what the client refuses, and keeps what it accepts as the client reads it', async () => {
    const mds = await startMds(tempDir('layout-refusals'));
    const c = mds.client;
    try {
      await call(c, 'Mkdir', { path: '/d' });
      const setText = (text: string) =>
        call(c, 'SetXattr', { path: '/d', name: 'user.stripefs.layout', value: Buffer.from(text) });
      for (const [text, code] of REFUSED_TEXT) {
        expect(await codeOf(setText(text)), text).toBe(code);
        expect(await codeOf(() => configuredDefault(text)), text).toBe(code);
      }
      let n = 0;
      const mdsCodes = async (raw: Layout__Output) => {
        n++;
        return [
          await codeOf(call(c, 'Mkdir', { path: `/m${n}`, layout: raw })),
          await codeOf(call(c, 'SetLayout', { path: '/d', layout: raw })),
          await codeOf(call(c, 'Create', { path: `/d/f${n}`, layout: raw })),
        ];
      };
      const unreadable: [string, ErrorCode][] = [];
      for (const [text, code] of REFUSED_TEXT) {
        let raw: Layout__Output;
        try {
          raw = layoutToWire(scanLayout(text)) as Layout__Output;
        } catch {
          unreadable.push([text, code]);
          continue;
        }
        expect(await mdsCodes(raw), text).toEqual([code, code, code]);
        expect(await codeOf(() => layoutFromWire(raw)), text).toBe(code);
      }
      for (const [what, raw] of REFUSED_WIRE) {
        expect(await mdsCodes(raw), what).toEqual(['LAYOUT_INVALID', 'LAYOUT_INVALID', 'LAYOUT_INVALID']);
        expect(await codeOf(() => layoutFromWire(raw)), what).toBe('LAYOUT_INVALID');
      }
      for (const text of ACCEPTED_TEXT) {
        const layout = parseLayout(text);
        const set = await call(c, 'SetLayout', { path: '/d', layout: layoutToWire(layout) });
        expect(formatLayout(wholeLayoutFromWire(set.attr?.layout)!), text).toBe(formatLayout(layout));
        await setText(text);
        const stat = await call(c, 'Stat', { path: '/d' });
        expect(wholeLayoutFromWire(stat.attr?.layout), text).toEqual(layout);
      }
      // Both halves are there: the table tests the grammar and the checks alike.
      expect(unreadable.length).toBeGreaterThan(10);
      expect(REFUSED_TEXT.length - unreadable.length).toBeGreaterThan(5);
      const samples = ['raid0:4:65536', 'mirror:2', 'ec:4+0:host'];
      const started = [];
      for (const text of samples) started.push(await mdsStartCode(text));
      expect(started).toEqual(samples.map((text) => REFUSED_TEXT.find(([t]) => t === text)![1]));
    } finally {
      await stopMds(mds);
    }
  });

  it('the map check of a real MDS Create and of the client on the same map agree', async () => {
    const mds = await startMds(tempDir('layout-map'));
    const c = mds.client;
    try {
      for (let h = 0; h < 3; h++)
        await registerOss(c, { ossId: `oss${h}`, host: `h${h}`, rack: `r${h % 2}`, osts: 2 });
      let n = 0;
      const verdicts = { mds: [] as string[], client: [] as string[] };
      for (const text of MAP_CHECKED) {
        const layout = parseLayout(text);
        const view = mapViewFromWire((await call(c, 'GetMap', { epoch: 0 })).map!);
        verdicts.client.push(await codeOf(() => checkLayoutOnMap(layout, view.map)));
        verdicts.mds.push(
          await codeOf(call(c, 'Create', { path: `/f${n++}`, layout: layoutToWire(layout) })),
        );
      }
      expect(verdicts.mds).toEqual(verdicts.client);
      // Both verdicts occur, so agreement is not agreement on one answer.
      expect(new Set(verdicts.mds)).toEqual(new Set(['OK', 'LAYOUT_INVALID']));
    } finally {
      await stopMds(mds);
    }
  });
});
