// The one text form of a layout, as users type it in the CLI, the
// configuration (mds.defaultLayout) and the client API:
//
//   raid0[:COUNT][:SIZE]                    raid0:4, raid0:4:1M
//   replicated[:N][:DOMAIN][:COUNT][:SIZE]  replicated:3:host, replicated:3:rack:4:4M
//   ec:K+M[:DOMAIN][:SIZE]                  ec:4+2:host, ec:8+3:rack:4M
//   dom:SIZE,<one of the above>             dom:64K,raid0, dom:128K,replicated:3:host
//
// Parts are told apart by their form, not by their position: a bare number is a
// count (replicas first, then stripe count), a size always carries its unit
// (64K, 1M, 2G), a failure domain starts with a letter. A bare number where
// only a size could go (`raid0:4:65536`), or one too large for any count, is
// refused as LAYOUT_AMBIGUOUS with the form to write instead. Left-out parts
// take the defaults of LAYOUT_DEFAULTS. ',' separates components, as Lustre's
// PFL: a file's first SIZE bytes on the MDS (dom), then the striped component
// for the rest. '@' is kept for extent ends of striped components.
import { StripeError } from '../common/errors.js';
import { LIMITS, UNITS } from '../common/limits.js';
import { checkLayout, FAILURE_DOMAIN_PATTERN } from './check.js';
import type { Layout, LayoutFields, LayoutPattern } from './types.js';

type Slot = 'replicas' | 'geometry' | 'failureDomain' | 'stripeCount' | 'stripeSize';
type TokenKind = 'number' | 'geometry' | 'name' | 'size';

const SLOTS: Record<LayoutPattern, readonly Slot[]> = {
  raid0: ['stripeCount', 'stripeSize'],
  replicated: ['replicas', 'failureDomain', 'stripeCount', 'stripeSize'],
  ec: ['geometry', 'failureDomain', 'stripeSize'],
};
const SLOT_TAKES: Record<Slot, TokenKind> = {
  replicas: 'number',
  stripeCount: 'number',
  geometry: 'geometry',
  failureDomain: 'name',
  stripeSize: 'size',
};
const SIZE_UNITS = { K: UNITS.KiB, M: UNITS.MiB, G: UNITS.GiB } as const;
/** Every number of the text form fits the wire's uint32 fields. */
const TEXT_NUMBER_MAX = 0xffff_ffff;
const FORMS =
  'raid0[:COUNT][:SIZE], replicated[:N][:DOMAIN][:COUNT][:SIZE] or ec:K+M[:DOMAIN][:SIZE], after an optional dom:SIZE,';

function invalid(text: string, why: string): never {
  throw new StripeError('LAYOUT_INVALID', `layout ${JSON.stringify(text)}: ${why}`, { layout: text });
}

function ambiguous(text: string, why: string): never {
  throw new StripeError('LAYOUT_AMBIGUOUS', `layout ${JSON.stringify(text)}: ${why}`, { layout: text });
}

function kindOf(token: string): TokenKind | undefined {
  if (/^\d+$/.test(token)) return 'number';
  if (/^\d+\+\d+$/.test(token)) return 'geometry';
  if (/^\d+[KMG]$/i.test(token)) return 'size';
  if (FAILURE_DOMAIN_PATTERN.test(token)) return 'name';
  return undefined;
}

function numberOf(text: string, digits: string, what: string): number {
  const value = Number(digits);
  if (value < 1) invalid(text, `${what} ${digits}: must be at least 1`);
  if (value > TEXT_NUMBER_MAX) invalid(text, `${what} ${digits}: too large`);
  return value;
}

/** 64K, 1M, 2G (K, M, G are KiB, MiB, GiB; any case) -> bytes. */
function sizeOf(text: string, token: string, what = 'stripe size'): number {
  const unit = SIZE_UNITS[token.slice(-1).toUpperCase() as keyof typeof SIZE_UNITS];
  const bytes = numberOf(text, token.slice(0, -1), what) * unit;
  if (bytes > TEXT_NUMBER_MAX) invalid(text, `${what} ${token}: too large`);
  return bytes;
}

/** What to write instead of a bare number that was probably meant as a size in bytes. */
function sizeHint(digits: string): string {
  const bytes = Number(digits);
  return bytes % UNITS.KiB === 0 ? formatStripeSize(bytes) : 'a number with K, M or G';
}

/** A bare number with no count slot left, or too large for a count. */
function refuseBareNumber(text: string, pattern: LayoutPattern, token: string, sizeSlotLeft: boolean): never {
  const fix = `a stripe size carries its unit: write ${sizeHint(token)}`;
  if (pattern === 'ec' && sizeSlotLeft) ambiguous(text, `ec has no stripe count (k is its width); ${fix}`);
  if (sizeSlotLeft) ambiguous(text, `${token} would be a second count; ${fix}`);
  if (Number(token) >= LIMITS.stripeSizeBytesMin)
    ambiguous(text, `${token} is too large for a count; ${fix}`);
  return invalid(text, `${token} has no place after the stripe size`);
}

function put(text: string, pattern: LayoutPattern, fields: LayoutFields, slot: Slot, token: string): void {
  if (slot === 'geometry') {
    const [k, m] = token.split('+') as [string, string];
    fields.k = numberOf(text, k, 'ec k');
    fields.m = numberOf(text, m, 'ec m');
  } else if (slot === 'failureDomain') fields.failureDomain = token;
  else if (slot === 'stripeSize') fields.stripeSize = sizeOf(text, token);
  else {
    if (Number(token) >= LIMITS.stripeSizeBytesMin) refuseBareNumber(text, pattern, token, false);
    fields[slot] = numberOf(text, token, slot === 'replicas' ? 'replicas' : 'stripe count');
  }
}

/** `dom:SIZE` -> the bytes it keeps on the MDS (checked as a layout later). */
function scanDom(text: string, component: string): number {
  const [, size, ...extra] = component.split(':');
  if (size === undefined || size === '' || extra.length > 0)
    invalid(text, `the dom component is dom:SIZE, as in dom:64K`);
  if (/^\d+$/.test(size)) ambiguous(text, `dom ${size}: a size carries its unit: write ${sizeHint(size)}`);
  if (kindOf(size) !== 'size') invalid(text, `dom ${JSON.stringify(size)}: expected a size such as 64K`);
  return sizeOf(text, size, 'dom size');
}

/**
 * The syntax step alone: text -> the fields it names, not yet checked as a layout (sizes, counts
 * and widths are checkLayout's). Throws LAYOUT_INVALID or LAYOUT_AMBIGUOUS for text that names none.
 */
export function scanLayout(text: string): LayoutFields {
  if (text.includes('@')) invalid(text, 'extent ends (@) of striped components are not supported yet');
  const components = text.trim().split(',');
  const isDom = (component: string) => component.split(':')[0] === 'dom';
  if (components.length === 1 && isDom(components[0]!))
    invalid(text, 'dom needs the striped component for the bytes after it, as in dom:64K,raid0');
  if (components.length > 2 || (components.length === 2 && !isDom(components[0]!))) {
    if (components.slice(1).some(isDom)) invalid(text, 'the dom component comes first, as in dom:64K,raid0');
    invalid(text, 'only dom:SIZE may come before the striped component (dom:64K,raid0:4)');
  }
  if (components.length === 2) {
    if (isDom(components[1]!)) invalid(text, 'a layout has one dom component, then a striped one');
    return { ...scanStriped(components[1]!, text), domBytes: scanDom(text, components[0]!) };
  }
  return scanStriped(components[0]!, text);
}

/** One striped component's text -> its fields; `whole` is the full text, for messages. */
function scanStriped(component: string, text: string): LayoutFields {
  const [pattern, ...tokens] = component.trim().split(':');
  if (pattern !== 'raid0' && pattern !== 'replicated' && pattern !== 'ec')
    invalid(text, `unknown pattern ${JSON.stringify(pattern)}; expected ${FORMS}`);
  const slots = SLOTS[pattern];
  const fields: LayoutFields = { pattern };
  let next = 0;
  for (const token of tokens) {
    const kind = kindOf(token);
    if (kind === undefined)
      invalid(text, `${JSON.stringify(token)} is not a count, a size (64K, 1M), K+M or a failure domain`);
    let at = next;
    while (at < slots.length && SLOT_TAKES[slots[at]!] !== kind) at++;
    if (at === slots.length) {
      if (kind === 'number') refuseBareNumber(text, pattern, token, slots.slice(next).includes('stripeSize'));
      if (kind === 'name' && !slots.includes('failureDomain'))
        invalid(text, `raid0 has no failure domain (${JSON.stringify(token)}): each object is one copy`);
      invalid(text, `${JSON.stringify(token)} is out of place; expected ${FORMS}`);
    }
    put(text, pattern, fields, slots[at]!, token);
    next = at + 1;
  }
  if (pattern === 'ec' && fields.k === undefined) invalid(text, 'ec needs K+M, as in ec:4+2:host');
  return fields;
}

/** Text -> a checked layout (the scan, then checkLayout). */
export function parseLayout(text: string): Layout {
  return checkLayout(scanLayout(text));
}

/** Bytes -> the largest whole unit: 65536 -> 64K, 1048576 -> 1M. */
export function formatStripeSize(bytes: number): string {
  for (const unit of ['G', 'M', 'K'] as const) {
    if (bytes % SIZE_UNITS[unit] === 0) return `${bytes / SIZE_UNITS[unit]}${unit}`;
  }
  throw new Error(`stripe size ${bytes} is not a whole number of KiB`);
}

/** The canonical text: every part written out, so it reads back to the same layout. */
export function formatLayout(layout: Layout): string {
  if (layout.pattern === 'dom')
    return `dom:${formatStripeSize(layout.domBytes)},${formatLayout(layout.rest)}`;
  const size = formatStripeSize(layout.stripeSize);
  if (layout.pattern === 'raid0') return `raid0:${layout.stripeCount}:${size}`;
  if (layout.pattern === 'replicated')
    return `replicated:${layout.replicas}:${layout.failureDomain}:${layout.stripeCount}:${size}`;
  return `ec:${layout.k}+${layout.m}:${layout.failureDomain}:${size}`;
}
