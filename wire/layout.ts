// Layout <-> the proto Layout. Zero on the wire means "not given": the field
// takes the same default as when the text form leaves it out; fields that do
// not apply to the pattern are zero. Decoding runs the one validator, so the
// MDS and the client refuse exactly the same wire layouts.
import { StripeError } from '../common/errors.js';
import {
  checkLayout,
  type FileLayout,
  fileLayoutOf,
  flatFields,
  flatPatternOf,
  type Layout,
  type LayoutFields,
  type LayoutPattern,
} from '../layout/index.js';
import type { Layout as WireLayout, Layout__Output as WireLayoutOut } from '../proto/index.js';

const PATTERN_TO_WIRE = {
  raid0: 'LAYOUT_PATTERN_RAID0',
  replicated: 'LAYOUT_PATTERN_REPLICATED',
  ec: 'LAYOUT_PATTERN_EC',
} as const satisfies Record<LayoutPattern, string>;

const PATTERN_OF_WIRE = new Map<string, LayoutPattern>(
  Object.entries(PATTERN_TO_WIRE).map(([pattern, wire]) => [wire, pattern as LayoutPattern]),
);

/**
 * Encodes the fields as given (0 / '' for what is left out): callers pass a checked Layout;
 * tests pass the raw fields of refused text to see the MDS refuse them too. A dom layout is its
 * striped component's fields plus dom_bytes.
 */
export function layoutToWire(layout: LayoutFields | Layout, poolId = 0): WireLayout {
  const pattern = PATTERN_TO_WIRE[flatPatternOf(layout) as LayoutPattern] ?? 'LAYOUT_PATTERN_UNSPECIFIED';
  return { pattern, ...flatFields(layout), poolId };
}

function isEmpty(wire: WireLayoutOut): boolean {
  return (
    !wire.stripeSize &&
    !wire.stripeCount &&
    !wire.replicas &&
    !wire.k &&
    !wire.m &&
    !wire.failureDomain &&
    !wire.domBytes
  );
}

/** The checked layout a wire Layout names (dom when dom_bytes is set); null when it names none. */
export function wholeLayoutFromWire(wire: WireLayoutOut | null | undefined): Layout | null {
  if (!wire) return null;
  const pattern = PATTERN_OF_WIRE.get(wire.pattern);
  if (pattern === undefined) {
    if (wire.pattern === 'LAYOUT_PATTERN_UNSPECIFIED' && isEmpty(wire)) return null;
    throw new StripeError(
      'LAYOUT_INVALID',
      `layout pattern ${JSON.stringify(wire.pattern)}: expected raid0, replicated or ec`,
    );
  }
  return checkLayout({
    pattern,
    stripeSize: wire.stripeSize || undefined,
    stripeCount: wire.stripeCount || undefined,
    replicas: wire.replicas || undefined,
    k: wire.k || undefined,
    m: wire.m || undefined,
    failureDomain: wire.failureDomain || undefined,
    domBytes: wire.domBytes || undefined,
  });
}

/**
 * The checked layout as the striping code takes it (the striped component, its pool and the bytes
 * on the MDS before it); null when the message carries no layout (absent, or
 * unspecified with every field zero). Throws LAYOUT_INVALID naming the reason.
 */
export function layoutFromWire(wire: WireLayoutOut | null | undefined): FileLayout | null {
  const layout = wholeLayoutFromWire(wire);
  return layout && fileLayoutOf(layout, (wire as WireLayoutOut).poolId);
}

/** For a message that must carry a layout (a file's attributes): LAYOUT_INVALID when it has none. */
export function requireLayoutFromWire(wire: WireLayoutOut | null | undefined, what: string): FileLayout {
  const fileLayout = layoutFromWire(wire);
  if (!fileLayout) throw new StripeError('LAYOUT_INVALID', `${what} has no layout`);
  return fileLayout;
}
