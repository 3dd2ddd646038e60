// File layouts: the text form (`raid0:COUNT[:SIZE]`, `replicated:N:DOMAIN[:COUNT[:SIZE]]`,
// `ec:K+M:DOMAIN[:SIZE]`), the wire form, and validation. Static checks
// (sizes, counts) need nothing; map checks (enough OSTs or failure domains)
// need the current cluster map. Pure: throws LAYOUT_INVALID naming the reason.
import { LIMITS, StripeError, UNITS } from '../common/index.js';
import { type ClusterMap, countFailureDomains, type RuleSpec } from '../placement/index.js';
import type { Layout, Layout__Output } from '../proto/index.js';

export type LayoutPatternName = 'raid0' | 'replicated' | 'ec';

/** The stored form. Fields that do not apply to the pattern are 0 / ''. */
export interface LayoutRecord {
  pattern: LayoutPatternName;
  stripeSizeBytes: number;
  stripeCount: number;
  replicas: number;
  k: number;
  m: number;
  failureDomain: string;
  poolId: number; // 0 until a file is created with it
}

export const DEFAULT_STRIPE_SIZE_BYTES = 1 * UNITS.MiB;
/** Largest replicas or k+m (placement's RULE_SIZE_MAX). */
export const LAYOUT_WIDTH_MAX = 32;

function invalid(message: string, details: Record<string, unknown> = {}): never {
  throw new StripeError('LAYOUT_INVALID', message, details);
}

function parseSize(text: string): number {
  const match = /^(\d+)([KMG]?)$/i.exec(text);
  if (!match) invalid(`stripe size ${JSON.stringify(text)}: expected bytes or a number with K/M/G`);
  const unit = { '': 1, K: UNITS.KiB, M: UNITS.MiB, G: UNITS.GiB }[match[2]!.toUpperCase()] ?? 1;
  return Number(match[1]) * unit;
}

function parseCount(text: string, what: string): number {
  if (!/^\d{1,6}$/.test(text)) invalid(`${what} ${JSON.stringify(text)}: expected a whole number`);
  return Number(text);
}

function blank(pattern: LayoutPatternName): LayoutRecord {
  const base = { stripeSizeBytes: DEFAULT_STRIPE_SIZE_BYTES, stripeCount: 0, replicas: 0, k: 0, m: 0 };
  return { pattern, ...base, failureDomain: '', poolId: 0 };
}

/** Parses the text form and checks it statically. */
export function parseLayoutText(text: string): LayoutRecord {
  const parts = text.trim().split(':');
  const kind = parts[0];
  let layout: LayoutRecord;
  if (kind === 'raid0' && parts.length >= 2 && parts.length <= 3) {
    layout = { ...blank('raid0'), stripeCount: parseCount(parts[1]!, 'stripe count') };
    if (parts[2] !== undefined) layout.stripeSizeBytes = parseSize(parts[2]);
  } else if (kind === 'replicated' && parts.length >= 3 && parts.length <= 5) {
    layout = {
      ...blank('replicated'),
      replicas: parseCount(parts[1]!, 'replicas'),
      failureDomain: parts[2]!,
    };
    layout.stripeCount = parts[3] !== undefined ? parseCount(parts[3], 'stripe count') : 1;
    if (parts[4] !== undefined) layout.stripeSizeBytes = parseSize(parts[4]);
  } else if (kind === 'ec' && parts.length >= 3 && parts.length <= 4) {
    const km = /^(\d{1,3})\+(\d{1,3})$/.exec(parts[1]!);
    if (!km) invalid(`ec ${JSON.stringify(parts[1])}: expected K+M, e.g. 4+2`);
    layout = { ...blank('ec'), k: Number(km[1]), m: Number(km[2]), failureDomain: parts[2]! };
    if (parts[3] !== undefined) layout.stripeSizeBytes = parseSize(parts[3]);
  } else {
    invalid(
      `layout ${JSON.stringify(text)}: expected raid0:COUNT[:SIZE], replicated:N:DOMAIN[:COUNT[:SIZE]] or ec:K+M:DOMAIN[:SIZE]`,
    );
  }
  return checkLayoutStatic(layout);
}

export function formatLayout(layout: LayoutRecord): string {
  const size =
    layout.stripeSizeBytes % UNITS.MiB === 0
      ? `${layout.stripeSizeBytes / UNITS.MiB}M`
      : `${layout.stripeSizeBytes / UNITS.KiB}K`;
  if (layout.pattern === 'raid0') return `raid0:${layout.stripeCount}:${size}`;
  if (layout.pattern === 'replicated')
    return `replicated:${layout.replicas}:${layout.failureDomain}:${layout.stripeCount}:${size}`;
  return `ec:${layout.k}+${layout.m}:${layout.failureDomain}:${size}`;
}

/** Sizes and counts; fills defaults; zeroes fields that do not apply. */
export function checkLayoutStatic(input: LayoutRecord): LayoutRecord {
  const layout = { ...input };
  const size = layout.stripeSizeBytes === 0 ? DEFAULT_STRIPE_SIZE_BYTES : layout.stripeSizeBytes;
  if (
    !Number.isSafeInteger(size) ||
    size < LIMITS.stripeSizeBytesMin ||
    size > LIMITS.stripeSizeBytesMax ||
    (size & (size - 1)) !== 0
  ) {
    invalid(`stripe size ${size}: must be a power of two from 64 KiB to 64 MiB`, { stripeSizeBytes: size });
  }
  layout.stripeSizeBytes = size;
  if (layout.pattern !== 'ec') {
    if (layout.stripeCount === 0) layout.stripeCount = 1;
    if (layout.stripeCount < 1 || layout.stripeCount > LIMITS.stripeCountMax) {
      invalid(`stripe count ${layout.stripeCount}: must be 1..${LIMITS.stripeCountMax}`, {
        stripeCount: layout.stripeCount,
      });
    }
  }
  if (layout.pattern === 'raid0') return { ...layout, replicas: 0, k: 0, m: 0, failureDomain: '' };
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(layout.failureDomain)) {
    invalid(
      `failure domain ${JSON.stringify(layout.failureDomain)}: expected a level name such as host or rack`,
    );
  }
  if (layout.pattern === 'replicated') {
    if (layout.replicas < 1 || layout.replicas > LAYOUT_WIDTH_MAX)
      invalid(`replicas ${layout.replicas}: must be 1..${LAYOUT_WIDTH_MAX}`);
    return { ...layout, k: 0, m: 0 };
  }
  if (layout.k < 1) invalid(`ec k ${layout.k}: must be at least 1`);
  if (layout.k + layout.m > LAYOUT_WIDTH_MAX)
    invalid(`ec ${layout.k}+${layout.m}: k+m must be at most ${LAYOUT_WIDTH_MAX}`);
  return { ...layout, stripeCount: 0, replicas: 0 };
}

/** The rule whose pool places this layout's objects. */
export function ruleOf(layout: LayoutRecord): RuleSpec {
  if (layout.pattern === 'raid0') return { kind: 'replicated', size: 1, failureDomain: 'ost' };
  if (layout.pattern === 'replicated')
    return { kind: 'replicated', size: layout.replicas, failureDomain: layout.failureDomain };
  return { kind: 'erasure', k: layout.k, m: layout.m, failureDomain: layout.failureDomain };
}

/** Checks the layout can be placed on the current map; the message says what is short. */
export function checkLayoutAgainstMap(layout: LayoutRecord, map: ClusterMap): void {
  if (layout.pattern === 'raid0') {
    const inOsts = map.osts.filter((o) => o.state.in && o.weight > 0).length;
    if (layout.stripeCount > inOsts) {
      invalid(`${inOsts} OSTs in, need ${layout.stripeCount} for stripe count ${layout.stripeCount}`, {
        inOsts,
      });
    }
    return;
  }
  const domain = layout.failureDomain;
  if (!map.types.includes(domain)) {
    invalid(`failure domain '${domain}' is not a level of the map (${map.types.join(', ')})`, { domain });
  }
  const need = layout.pattern === 'replicated' ? layout.replicas : layout.k + layout.m;
  const have = countFailureDomains(map, domain, { onlyIn: true });
  if (need > have) invalid(`${have} ${domain}s in, need ${need}`, { domain, have, need });
}

const PATTERN_TO_WIRE = {
  raid0: 'LAYOUT_PATTERN_RAID0',
  replicated: 'LAYOUT_PATTERN_REPLICATED',
  ec: 'LAYOUT_PATTERN_EC',
} as const;

export function layoutToWire(layout: LayoutRecord): Layout {
  return {
    pattern: PATTERN_TO_WIRE[layout.pattern],
    stripeSize: layout.stripeSizeBytes,
    stripeCount: layout.stripeCount,
    replicas: layout.replicas,
    k: layout.k,
    m: layout.m,
    failureDomain: layout.failureDomain,
    poolId: layout.poolId,
  };
}

/** null when the request carries no layout (absent, or all fields zero). */
export function layoutFromWire(wire: Layout__Output | null | undefined): LayoutRecord | null {
  if (!wire) return null;
  const empty =
    !wire.stripeSize && !wire.stripeCount && !wire.replicas && !wire.k && !wire.m && !wire.failureDomain;
  const pattern = (Object.keys(PATTERN_TO_WIRE) as LayoutPatternName[]).find(
    (p) => PATTERN_TO_WIRE[p] === wire.pattern,
  );
  if (pattern === undefined) {
    if (empty) return null;
    invalid(`layout pattern ${JSON.stringify(wire.pattern)}: expected raid0, replicated or ec`);
  }
  const layout: LayoutRecord = {
    pattern,
    stripeSizeBytes: wire.stripeSize,
    stripeCount: wire.stripeCount,
    replicas: wire.replicas,
    k: wire.k,
    m: wire.m,
    failureDomain: wire.failureDomain,
    poolId: 0, // the client never chooses the pool
  };
  return checkLayoutStatic(layout);
}
