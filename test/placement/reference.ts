import { hash32x3 } from '../../placement/hash.js';
import type { ClusterMap, Placement, RuleSpec } from '../../placement/index.js';

/**
 * A deliberately naive reference of the stripefs rules: walks the map objects directly, uses
 * floating Math.log for straw2 and plain arrays, no caching, no fixed point beyond rounding the
 * weight. Slow and obvious; the real engine must make the same choices.
 */
interface Leaf {
  id: number;
  weight16: number;
  in: boolean;
  domain: string;
}

function leaves(map: ClusterMap, rule: RuleSpec): Leaf[] {
  const byId = new Map(map.buckets.map((b) => [b.id, b]));
  const out: Leaf[] = [];
  const walk = (id: number, domain: string | undefined): void => {
    if (id >= 0) {
      const o = map.osts.find((x) => x.id === id)!;
      const w = Math.round(o.weight * 65536);
      const d = rule.failureDomain === map.types[0] ? o.name : domain;
      if (w > 0) out.push({ id, weight16: w, in: o.state.in, domain: d! });
      return;
    }
    const b = byId.get(id)!;
    for (const c of b.children) walk(c, b.type === rule.failureDomain ? b.name : domain);
  };
  walk(map.buckets.find((b) => b.name === (rule.root ?? map.rootName))!.id, undefined);
  return out;
}

function draw(x: number, leaf: Leaf, r: number): number {
  const u = hash32x3(x, leaf.id, r) & 0xffff;
  return Math.log((u + 1) / 65536) / leaf.weight16;
}

/** Erasure position p: the low (p even) or high (p odd) 16 bits of the hash with attempt p >> 1. */
function positionDraw(x: number, leaf: Leaf, p: number): number {
  const u = (hash32x3(x, leaf.id, p >> 1) >>> (16 * (p & 1))) & 0xffff;
  return Math.log((u + 1) / 65536) / leaf.weight16;
}

function bestForPosition(x: number, p: number, candidates: Leaf[]): Leaf | undefined {
  let win: Leaf | undefined;
  let winDraw = -Infinity;
  for (const l of candidates) {
    const d = positionDraw(x, l, p);
    if (d > winDraw) [win, winDraw] = [l, d];
  }
  return win;
}

function best(x: number, r: number, candidates: Leaf[]): Leaf | undefined {
  let win: Leaf | undefined;
  let winDraw = -Infinity;
  for (const l of candidates) {
    const d = draw(x, l, r);
    if (d > winDraw) [win, winDraw] = [l, d];
  }
  return win;
}

export function referencePlace(map: ClusterMap, rule: RuleSpec, x: number): Placement {
  const all = leaves(map, rule);
  return rule.kind === 'replicated' ? replicated(all, rule.size, x) : erasure(all, rule.k + rule.m, x);
}

function replicated(all: Leaf[], n: number, x: number): Placement {
  const domains = [...new Set(all.map((l) => l.domain))];
  const keyed = domains.map((d) => ({
    d,
    top: best(
      x,
      0,
      all.filter((l) => l.domain === d),
    )!,
  }));
  keyed.sort((a, b) => draw(x, b.top, 0) - draw(x, a.top, 0) || domains.indexOf(a.d) - domains.indexOf(b.d));
  const chosen = keyed.slice(0, n);
  const result: Leaf[] = [];
  chosen.forEach((c, i) => {
    if (c.top.in) {
      result.push(c.top);
      return;
    }
    const others = new Set([...result.map((l) => l.domain), ...chosen.slice(i + 1).map((o) => o.d)]);
    const repl = best(
      x,
      0,
      all.filter((l) => l.in && !others.has(l.domain)),
    );
    if (repl) result.push(repl);
  });
  return { osts: result.map((l) => l.id), complete: result.length === n };
}

/** Stable matching by per-position draws: pairs (position, domain) taken largest key first. */
function erasure(all: Leaf[], n: number, x: number): Placement {
  const domains = [...new Set(all.map((l) => l.domain))];
  const pairs: { p: number; d: number; top: Leaf; key: number }[] = [];
  for (let p = 0; p < n; p++) {
    domains.forEach((d, di) => {
      const top = bestForPosition(
        x,
        p,
        all.filter((l) => l.domain === d),
      )!;
      pairs.push({ p, d: di, top, key: positionDraw(x, top, p) });
    });
  }
  pairs.sort((a, b) => b.key - a.key || all.indexOf(a.top) - all.indexOf(b.top) || a.p - b.p);
  const pos: (Leaf | undefined)[] = new Array(n).fill(undefined);
  for (const pair of pairs) {
    if (pos[pair.p] || pos.some((q) => q?.domain === pair.top.domain)) continue;
    pos[pair.p] = pair.top;
  }
  for (let p = 0; p < n; p++) {
    if (!pos[p] || pos[p]!.in) continue;
    const others = new Set(pos.filter((q, i) => i !== p && q).map((q) => q!.domain));
    pos[p] = bestForPosition(
      x,
      p,
      all.filter((l) => l.in && !others.has(l.domain)),
    );
  }
  const osts = pos.map((l) => (l ? l.id : -1));
  return { osts, complete: !osts.includes(-1) };
}
