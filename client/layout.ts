// The one place where a file layout is converted between the plain object the
// API and the CLI use and the proto `Layout` the MDS stores. Fields that do not
// apply to a pattern are left out of the plain object (and zero on the wire).
import { StripeError } from '../common/errors.js';
import { LIMITS, UNITS } from '../common/limits.js';
import type { Layout as WireLayout, Layout__Output as WireLayoutOut } from '../proto/index.js';

export type LayoutPattern = 'raid0' | 'replicated' | 'ec';

export interface Layout {
  pattern: LayoutPattern;
  stripeSize: number;
  stripeCount?: number;
  replicas?: number;
  k?: number;
  m?: number;
  failureDomain?: string;
}

/** A stored file layout: the plain layout plus the pool the MDS placed it in. */
export interface FileLayout {
  layout: Layout;
  poolId: number;
}

export const DEFAULT_STRIPE_SIZE_BYTES = 1 * UNITS.MiB;
const EC_SHARDS_MAX = 32;

const TO_WIRE = {
  raid0: 'LAYOUT_PATTERN_RAID0',
  replicated: 'LAYOUT_PATTERN_REPLICATED',
  ec: 'LAYOUT_PATTERN_EC',
} as const;

function invalid(message: string, layout: unknown): never {
  throw new StripeError('LAYOUT_INVALID', message, { layout });
}

function isPowerOfTwo(n: number): boolean {
  return Number.isSafeInteger(n) && n > 0 && (n & (n - 1)) === 0;
}

function positiveInt(value: unknown, name: string, layout: unknown, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    invalid(`${name} must be an integer from 1 to ${max}`, layout);
  }
  return value;
}

/** Validates and normalises a plain layout: drops fields that do not apply, fills defaults. */
export function normalizeLayout(input: Partial<Layout>): Layout {
  const stripeSize = input.stripeSize ?? DEFAULT_STRIPE_SIZE_BYTES;
  if (
    !isPowerOfTwo(stripeSize) ||
    stripeSize < LIMITS.stripeSizeBytesMin ||
    stripeSize > LIMITS.stripeSizeBytesMax
  ) {
    invalid(
      `stripeSize must be a power of two from ${LIMITS.stripeSizeBytesMin} to ${LIMITS.stripeSizeBytesMax}`,
      input,
    );
  }
  const domain = input.failureDomain ?? 'host';
  if (typeof domain !== 'string' || domain.length === 0)
    invalid('failureDomain must be a non-empty string', input);
  switch (input.pattern) {
    case 'raid0':
      return {
        pattern: 'raid0',
        stripeSize,
        stripeCount: positiveInt(input.stripeCount ?? 1, 'stripeCount', input, LIMITS.stripeCountMax),
      };
    case 'replicated':
      return {
        pattern: 'replicated',
        stripeSize,
        stripeCount: positiveInt(input.stripeCount ?? 1, 'stripeCount', input, LIMITS.stripeCountMax),
        replicas: positiveInt(input.replicas ?? 3, 'replicas', input, EC_SHARDS_MAX),
        failureDomain: domain,
      };
    case 'ec': {
      const k = positiveInt(input.k, 'k', input, EC_SHARDS_MAX);
      const m = positiveInt(input.m, 'm', input, EC_SHARDS_MAX);
      if (k + m > EC_SHARDS_MAX) invalid(`k + m must be at most ${EC_SHARDS_MAX}`, input);
      return { pattern: 'ec', stripeSize, k, m, failureDomain: domain };
    }
    default:
      return invalid(`pattern must be raid0, replicated or ec, got ${JSON.stringify(input.pattern)}`, input);
  }
}

export function layoutToWire(layout: Layout): WireLayout {
  const l = normalizeLayout(layout);
  return {
    pattern: TO_WIRE[l.pattern],
    stripeSize: l.stripeSize,
    stripeCount: l.stripeCount ?? 0,
    replicas: l.replicas ?? 0,
    k: l.k ?? 0,
    m: l.m ?? 0,
    failureDomain: l.failureDomain ?? '',
  };
}

export function layoutFromWire(wire: WireLayoutOut): FileLayout {
  const pattern = (
    {
      LAYOUT_PATTERN_RAID0: 'raid0',
      LAYOUT_PATTERN_REPLICATED: 'replicated',
      LAYOUT_PATTERN_EC: 'ec',
    } as const
  )[wire.pattern as 'LAYOUT_PATTERN_RAID0'];
  if (pattern === undefined) invalid(`unknown layout pattern ${wire.pattern}`, wire);
  const layout = normalizeLayout({
    pattern,
    stripeSize: wire.stripeSize,
    stripeCount: wire.stripeCount,
    replicas: wire.replicas,
    k: wire.k,
    m: wire.m,
    failureDomain: wire.failureDomain || undefined,
  });
  return { layout, poolId: wire.poolId };
}

/** 'raid0:4', 'raid0:4:1M', 'replicated:3:rack', 'ec:4+2:host' (optional trailing stripe size) -> Layout. */
export function parseLayout(text: string): Layout {
  const parts = text.split(':');
  const sizeOf = (raw: string | undefined): number | undefined => {
    if (raw === undefined) return undefined;
    const match = /^(\d+)([KMG]?)$/i.exec(raw);
    if (!match) invalid(`bad stripe size ${raw}`, text);
    const unit = { '': 1, K: UNITS.KiB, M: UNITS.MiB, G: UNITS.GiB }[
      (match[2] ?? '').toUpperCase() as '' | 'K' | 'M' | 'G'
    ];
    return Number(match[1]) * unit;
  };
  const [pattern, a, b, c] = parts;
  if (pattern === 'raid0')
    return normalizeLayout({ pattern, stripeCount: Number(a ?? 1), stripeSize: sizeOf(b) });
  if (pattern === 'replicated') {
    return normalizeLayout({ pattern, replicas: Number(a ?? 3), failureDomain: b, stripeSize: sizeOf(c) });
  }
  if (pattern === 'ec') {
    const km = /^(\d+)\+(\d+)$/.exec(a ?? '');
    if (!km) invalid(`ec layout needs K+M, got ${a}`, text);
    return normalizeLayout({
      pattern,
      k: Number(km[1]),
      m: Number(km[2]),
      failureDomain: b,
      stripeSize: sizeOf(c),
    });
  }
  return invalid(`unknown layout ${text}`, text);
}

/** Objects a file's data units are spread over: stripeCount, or k for ec. */
export function dataWidth(layout: Layout): number {
  const width = layout.pattern === 'ec' ? layout.k : layout.stripeCount;
  if (width === undefined || width < 1) throw new Error(`layout without a width: ${JSON.stringify(layout)}`);
  return width;
}
