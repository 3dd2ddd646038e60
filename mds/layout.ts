// The MDS's stored form of a layout, as every version has written it in the
// namespace records (JSON): flat, fields that do not apply 0 or '', plus the
// pool id. The layout value, its text form and its checks are in layout/, its
// wire form in wire/; this file only converts between the value and the record.
import { StripeError } from '../common/errors.js';
import { flatFields, type Layout, parseLayout } from '../layout/index.js';
import type { Layout__Output } from '../proto/index.js';
import { layoutFromWire } from '../wire/index.js';

export interface LayoutRecord {
  pattern: Layout['pattern'];
  stripeSizeBytes: number;
  stripeCount: number;
  replicas: number;
  k: number;
  m: number;
  failureDomain: string;
  poolId: number; // 0 until a file is created with it
}

export function recordOf(layout: Layout, poolId = 0): LayoutRecord {
  const { stripeSize, ...rest } = flatFields(layout);
  return { pattern: layout.pattern, stripeSizeBytes: stripeSize, ...rest, poolId };
}

/** Records were checked when written, so this only picks the fields of the pattern. */
export function layoutOfRecord(record: LayoutRecord): Layout {
  const { stripeSizeBytes: stripeSize, stripeCount, replicas, k, m, failureDomain } = record;
  if (record.pattern === 'raid0') return { pattern: 'raid0', stripeSize, stripeCount };
  if (record.pattern === 'replicated')
    return { pattern: 'replicated', stripeSize, stripeCount, replicas, failureDomain };
  return { pattern: 'ec', stripeSize, k, m, failureDomain };
}

/** The layout a request gives, checked, as a record without a pool; null when it gives none. */
export function givenLayout(wire: Layout__Output | null | undefined): LayoutRecord | null {
  const given = layoutFromWire(wire);
  return given && recordOf(given.layout);
}

/** The root's default from the configuration; a refusal keeps its code and names the key. */
export function configuredDefault(text: string): LayoutRecord {
  try {
    return recordOf(parseLayout(text));
  } catch (err) {
    if (!(err instanceof StripeError)) throw err;
    throw new StripeError(
      err.code,
      `mds.defaultLayout (STRIPEFS_MDS_DEFAULT_LAYOUT): ${err.message}`,
      err.details,
    );
  }
}
