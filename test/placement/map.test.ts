import { describe, expect, it } from 'vitest';
import {
  addOsts,
  buildTopology,
  countFailureDomains,
  failureDomainOf,
  PlacementError,
  parseTopologySpec,
  setOstState,
  setOstWeight,
  validateMap,
} from '../../placement/index.js';

function errorOf(fn: () => unknown): PlacementError {
  try {
    fn();
  } catch (e) {
    if (e instanceof PlacementError) return e;
    throw e;
  }
  throw new Error('expected a PlacementError');
}

describe('cluster map', () => {
  const map = buildTopology({ datacenters: 1, racks: 3, hostsPerRack: 4, ostsPerHost: 2 });

  it('builds the documented names and shape', () => {
    expect(map.osts).toHaveLength(24);
    expect(map.osts.map((o) => o.id)).toEqual([...Array(24).keys()]);
    expect(failureDomainOf(map, 0, 'host')).toBe('host0');
    expect(failureDomainOf(map, 2, 'host')).toBe('host1');
    expect(failureDomainOf(map, 8, 'host')).toBe('host4');
    expect(failureDomainOf(map, 8, 'rack')).toBe('rack1');
    expect(failureDomainOf(map, 8, 'datacenter')).toBe('dc0');
    expect(failureDomainOf(map, 8, 'ost')).toBe('ost8');
    expect(countFailureDomains(map, 'rack')).toBe(3);
    expect(countFailureDomains(map, 'host')).toBe(12);
    expect(parseTopologySpec('dc=1,rack=3,host=4,ost=2')).toEqual({
      datacenters: 1,
      racks: 3,
      hostsPerRack: 4,
      ostsPerHost: 2,
    });
  });

  it('round-trips through JSON and validates', () => {
    expect(validateMap(JSON.parse(JSON.stringify(map)))).toEqual(map);
  });

  it('rejects bad maps with the field path and the expected form', () => {
    const bad = (mutate: (m: Record<string, unknown>) => void) => {
      const m = JSON.parse(JSON.stringify(map));
      mutate(m);
      return errorOf(() => validateMap(m));
    };
    const e1 = bad((m) => {
      (m.osts as { weight: unknown }[])[3]!.weight = -1;
    });
    expect(e1.code).toBe('PLACEMENT_INVALID_MAP');
    expect(e1.message).toMatch(/^osts\[3\]\.weight: expected a number in \[0, 65535\], got -1/);
    expect(bad((m) => (m.rootName = 'nope')).message).toMatch(/^rootName: expected the name of a bucket/);
    expect(bad((m) => ((m.buckets as { children: number[] }[])[2]!.children = [999])).message).toMatch(
      /children\[0\]: expected the id of an existing OST or bucket/,
    );
    expect(bad((m) => ((m.osts as { id: number }[])[1]!.id = 0)).message).toMatch(
      /osts\[1\]\.id: expected an id/,
    );
    expect(bad((m) => ((m.osts as { state: unknown }[])[0]!.state = 'up')).message).toMatch(
      /osts\[0\]\.state/,
    );
    expect(errorOf(() => validateMap(null)).message).toMatch(/^\$: expected a cluster map object/);
  });

  it('bumps the epoch on every mutation and never mutates its input', () => {
    const frozen = JSON.stringify(map);
    const a = setOstState(map, 5, { in: false });
    const b = setOstWeight(a, 6, 3);
    const c = addOsts(b, { datacenter: 'dc0', rack: 'rack9', host: 'host99' }, [
      { id: 24, name: 'ost24', weight: 2 },
    ]);
    expect([a.epoch, b.epoch, c.epoch]).toEqual([map.epoch + 1, map.epoch + 2, map.epoch + 3]);
    expect(JSON.stringify(map)).toBe(frozen);
    expect(a.osts[5]!.state).toEqual({ up: true, in: false });
    expect(failureDomainOf(c, 24, 'rack')).toBe('rack9');
    expect(countFailureDomains(a, 'ost', { onlyIn: true })).toBe(23);
    expect(validateMap(JSON.parse(JSON.stringify(c)))).toEqual(c);
    expect(
      errorOf(() => addOsts(c, { rack: 'rack0', host: 'hostX' }, [{ id: 25, name: 'ostX', weight: 1 }]))
        .message,
    ).toMatch(/not a rack under default/);
    expect(
      errorOf(() =>
        addOsts(b, { datacenter: 'dc0', rack: 'rack0', host: 'host0' }, [{ id: 3, name: 'dup', weight: 1 }]),
      ).code,
    ).toBe('PLACEMENT_INVALID_MAP');
  });
});
