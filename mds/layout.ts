// The MDS's stored form of a layout, as every version has written it in the
// namespace records (JSON): flat, fields that do not apply 0 or '', plus the
// pool id. The layout value, its text form and its checks are in layout/, its
// wire form in wire/; this file only converts between the value and the record.
// A dom layout is its striped component's record plus domBytes (absent in
// records written before data on the MDS: 0), so code that reads the pattern
// and stripe count (the destroy queue) sees the striped component.
import { StripeError } from '../common/errors.js';
import { flatFields, flatPatternOf, type Layout, parseLayout, type StripedLayout } from '../layout/index.js';
import type { Layout__Output } from '../proto/index.js';
import { wholeLayoutFromWire } from '../wire/index.js';

export interface LayoutRecord {
  pattern: StripedLayout['pattern'];
  stripeSizeBytes: number;
  stripeCount: number;
  replicas: number;
  k: number;
  m: number;
  failureDomain: string;
  poolId: number; // 0 until a file is created with it
  /** Bytes of the file kept on the MDS before the striped component (absent or 0: none). */
  domBytes?: number;
}

export function recordOf(layout: Layout, poolId = 0): LayoutRecord {
  const { stripeSize, domBytes, ...rest } = flatFields(layout);
  const pattern = flatPatternOf(layout) as StripedLayout['pattern'];
  const record: LayoutRecord = { pattern, stripeSizeBytes: stripeSize, ...rest, poolId };
  if (domBytes > 0) record.domBytes = domBytes;
  return record;
}

/** Bytes a stored layout keeps on the MDS (0: none). */
export function domBytesOfRecord(record: LayoutRecord | null | undefined): number {
  return record?.domBytes ?? 0;
}

/** Records were checked when written, so this only picks the fields of the pattern. */
export function layoutOfRecord(record: LayoutRecord): Layout {
  const rest = stripedOfRecord(record);
  return record.domBytes ? { pattern: 'dom', domBytes: record.domBytes, rest } : rest;
}

function stripedOfRecord(record: LayoutRecord): StripedLayout {
  const { stripeSizeBytes: stripeSize, stripeCount, replicas, k, m, failureDomain } = record;
  if (record.pattern === 'raid0') return { pattern: 'raid0', stripeSize, stripeCount };
  if (record.pattern === 'replicated')
    return { pattern: 'replicated', stripeSize, stripeCount, replicas, failureDomain };
  return { pattern: 'ec', stripeSize, k, m, failureDomain };
}

/** The layout a request gives, checked, as a record without a pool; null when it gives none. */
export function givenLayout(wire: Layout__Output | null | undefined): LayoutRecord | null {
  const given = wholeLayoutFromWire(wire);
  return given && recordOf(given);
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
