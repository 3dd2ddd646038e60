import { hash32x3 } from '../../placement/hash.js';
import type { ChooseStep, ClusterMap, Placement, RuleSpec } from '../../placement/index.js';

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
  if (rule.steps) return referenceStepped(map, rule, rule.steps, x);
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

/** A leaf with its item name at every step (its own name for a leaf-type step). */
interface PathLeaf extends Leaf {
  at: string[];
}

function pathLeaves(map: ClusterMap, rule: RuleSpec, steps: ChooseStep[]): PathLeaf[] {
  const byId = new Map(map.buckets.map((b) => [b.id, b]));
  const out: PathLeaf[] = [];
  const walk = (id: number, path: Map<string, string>): void => {
    if (id >= 0) {
      const o = map.osts.find((x) => x.id === id)!;
      const w = Math.round(o.weight * 65536);
      const at = steps.map((s) => (s.type === map.types[0] ? o.name : path.get(s.type)!));
      if (w > 0) out.push({ id, weight16: w, in: o.state.in, domain: at.at(-1)!, at });
      return;
    }
    const b = byId.get(id)!;
    for (const c of b.children) walk(c, new Map([...path, [b.type, b.name]]));
  };
  walk(map.buckets.find((b) => b.name === (rule.root ?? map.rootName))!.id, new Map());
  return out;
}

/** Slot q's draw of a leaf at the step f steps before the last (placement/stepped-indep.ts). */
function slotDraw(x: number, leaf: Leaf, f: number, q: number): number {
  const u = (hash32x3(x, leaf.id, f * 0x10000 + (q >> 1)) >>> (16 * (q & 1))) & 0xffff;
  return Math.log((u + 1) / 65536) / leaf.weight16;
}

function groups(list: PathLeaf[], step: number): PathLeaf[][] {
  const names = [...new Set(list.map((l) => l.at[step]!))];
  return names.map((n) => list.filter((l) => l.at[step] === n));
}

function countOf(step: ChooseStep, width: number): number {
  return step.count > 0 ? step.count : step.count + width;
}

interface Item {
  leaves: PathLeaf[];
  parent: PathLeaf[];
}

function referenceStepped(map: ClusterMap, rule: RuleSpec, steps: ChooseStep[], x: number): Placement {
  const all = pathLeaves(map, rule, steps);
  const width = rule.kind === 'replicated' ? rule.size : rule.k + rule.m;
  return rule.kind === 'replicated'
    ? steppedFirstn(all, steps, width, x)
    : steppedIndep(all, steps, width, x);
}

function steppedFirstn(all: PathLeaf[], steps: ChooseStep[], width: number, x: number): Placement {
  let items: Item[] = [{ leaves: all, parent: all }];
  steps.forEach((step, s) => {
    const next: Item[] = [];
    for (const item of items) {
      const want = Math.min(countOf(step, width), width - next.length);
      if (want <= 0) continue;
      const kids = groups(item.leaves, s).map((leaves) => ({ leaves, top: best(x, 0, leaves)! }));
      kids.sort((a, b) => draw(x, b.top, 0) - draw(x, a.top, 0)); // stable: depth-first order on ties
      for (const k of kids.slice(0, want)) next.push({ leaves: k.leaves, parent: item.leaves });
    }
    items = next;
  });
  const result: Leaf[] = [];
  items.forEach((item, i) => {
    const top = best(x, 0, item.leaves)!;
    if (top.in) {
      result.push(top);
      return;
    }
    const others = new Set([
      ...result.map((l) => l.domain),
      ...items.slice(i + 1).map((o) => o.leaves[0]!.domain),
    ]);
    const repl = best(
      x,
      0,
      item.parent.filter((l) => l.in && !others.has(l.domain)),
    );
    if (repl) result.push(repl);
  });
  return { osts: result.map((l) => l.id), complete: result.length === width };
}

function steppedIndep(all: PathLeaf[], steps: ChooseStep[], width: number, x: number): Placement {
  let slots: (Item | undefined)[] = [{ leaves: all, parent: all }];
  let leafOf: (PathLeaf | undefined)[] = [];
  steps.forEach((step, s) => {
    const f = steps.length - 1 - s;
    const next: (Item | undefined)[] = [];
    const nextLeaf: (PathLeaf | undefined)[] = [];
    for (const slot of slots) {
      const want = Math.min(countOf(step, width), width - next.length);
      if (want <= 0) continue;
      const base = next.length;
      for (let t = 0; t < want; t++) next.push(undefined);
      if (!slot) continue;
      const kids = groups(slot.leaves, s);
      const pairs: { t: number; kid: number; top: PathLeaf; key: number }[] = [];
      for (let t = 0; t < want; t++) {
        kids.forEach((leaves, kid) => {
          let top = leaves[0]!;
          for (const l of leaves) if (slotDraw(x, l, f, base + t) > slotDraw(x, top, f, base + t)) top = l;
          pairs.push({ t, kid, top, key: slotDraw(x, top, f, base + t) });
        });
      }
      pairs.sort((a, b) => b.key - a.key || all.indexOf(a.top) - all.indexOf(b.top) || a.t - b.t);
      const taken = new Set<number>();
      for (const p of pairs) {
        if (next[base + p.t] || taken.has(p.kid)) continue;
        taken.add(p.kid);
        next[base + p.t] = { leaves: kids[p.kid]!, parent: slot.leaves };
        nextLeaf[base + p.t] = p.top;
      }
    }
    slots = next;
    leafOf = nextLeaf;
  });
  const pos: (PathLeaf | undefined)[] = Array.from({ length: width }, (_, p) => leafOf[p]);
  for (let p = 0; p < width; p++) {
    if (!pos[p] || pos[p]!.in) continue;
    const others = new Set(pos.filter((q, i) => i !== p && q).map((q) => q!.domain));
    let repl: PathLeaf | undefined;
    for (const l of slots[p]!.parent) {
      if (!l.in || others.has(l.domain)) continue;
      if (!repl || slotDraw(x, l, 0, p) > slotDraw(x, repl, 0, p)) repl = l;
    }
    pos[p] = repl;
  }
  const osts = pos.map((l) => (l ? l.id : -1));
  return { osts, complete: !osts.includes(-1) };
}
