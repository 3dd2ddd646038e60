// The one layout validator. checkLayout: the static checks (sizes, counts, which
// fields apply), fills defaults and returns the union value; checkLayoutOnMap:
// whether the current cluster map can place it. Pure: throws LAYOUT_INVALID
// naming the reason.
import { StripeError } from '../common/errors.js';
import { LIMITS } from '../common/limits.js';
import { type ClusterMap, countFailureDomains, RULE_SIZE_MAX, type RuleSpec } from '../placement/index.js';
import {
  LAYOUT_DEFAULTS,
  type Layout,
  type LayoutFields,
  type LayoutInput,
  type StripedLayout,
  stripedPartOf,
} from './types.js';

/** Largest replicas or k+m: placement's RULE_SIZE_MAX. */
export const LAYOUT_WIDTH_MAX = RULE_SIZE_MAX;
/** A failure domain is a level name of the map: it starts with a letter, so text never reads it as a number. */
export const FAILURE_DOMAIN_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

function invalid(message: string, details: Record<string, unknown> = {}): never {
  throw new StripeError('LAYOUT_INVALID', message, details);
}

function wholeIn(value: number, min: number, max: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < min || value > max)
    invalid(`${what} ${value}: must be a whole number from ${min} to ${max}`, { [what]: value });
  return value;
}

export function checkStripeSize(bytes: number): number {
  if (
    !Number.isSafeInteger(bytes) ||
    bytes < LIMITS.stripeSizeBytesMin ||
    bytes > LIMITS.stripeSizeBytesMax ||
    (bytes & (bytes - 1)) !== 0
  ) {
    invalid(`stripe size ${bytes}: must be a power of two from 64K to 64M`, { stripeSizeBytes: bytes });
  }
  return bytes;
}

function checkDomain(domain: unknown): string {
  if (typeof domain !== 'string' || !FAILURE_DOMAIN_PATTERN.test(domain))
    invalid(`failure domain ${JSON.stringify(domain)}: expected a level name such as host or rack`);
  return domain;
}

function refuseFields(fields: LayoutFields, names: readonly (keyof LayoutFields)[]): void {
  for (const name of names)
    if (fields[name] !== undefined)
      invalid(`${name} does not apply to ${fields.pattern}`, { [name]: fields[name] });
}

/** Bytes kept on the MDS: a whole number of 4 KiB units, at most LIMITS.domBytesMax. */
export function checkDomBytes(bytes: number): number {
  if (
    !Number.isSafeInteger(bytes) ||
    bytes < LIMITS.domBytesUnit ||
    bytes > LIMITS.domBytesMax ||
    bytes % LIMITS.domBytesUnit !== 0
  ) {
    invalid(
      `dom size ${bytes}: must be a multiple of ${LIMITS.domBytesUnit / 1024}K from ${LIMITS.domBytesUnit / 1024}K to ${LIMITS.domBytesMax / 1024 / 1024}M`,
      { domBytes: bytes },
    );
  }
  return bytes;
}

/**
 * Static checks; fields left undefined take their defaults. Returns a fresh value holding only
 * what applies. Takes the flat fields (text, wire: the striped component's fields plus domBytes)
 * or a caller's input (a dom input names its striped component as `rest`).
 */
export function checkLayout(input: LayoutFields | LayoutInput): Layout {
  if (input.pattern === 'dom') {
    if (!('rest' in input) || typeof input.rest !== 'object' || input.rest === null)
      invalid('a dom layout needs the striped component for the bytes after it (rest), as in dom:64K,raid0');
    const domBytes = checkDomBytes(input.domBytes as number);
    if ((input.rest as { pattern?: string }).pattern === 'dom') invalid('a dom layout has one dom component');
    return { pattern: 'dom', domBytes, rest: checkStriped(input.rest as LayoutFields) };
  }
  const fields = input as LayoutFields;
  const striped = checkStriped(fields);
  if (fields.domBytes === undefined || fields.domBytes === 0) return striped;
  return { pattern: 'dom', domBytes: checkDomBytes(fields.domBytes), rest: striped };
}

function checkStriped(fields: LayoutFields): StripedLayout {
  const stripeSize = checkStripeSize(fields.stripeSize ?? LAYOUT_DEFAULTS.stripeSizeBytes);
  const count = () =>
    wholeIn(fields.stripeCount ?? LAYOUT_DEFAULTS.stripeCount, 1, LIMITS.stripeCountMax, 'stripeCount');
  switch (fields.pattern) {
    case 'raid0':
      refuseFields(fields, ['replicas', 'k', 'm', 'failureDomain']);
      return { pattern: 'raid0', stripeSize, stripeCount: count() };
    case 'replicated': {
      refuseFields(fields, ['k', 'm']);
      const replicas = wholeIn(fields.replicas ?? LAYOUT_DEFAULTS.replicas, 1, LAYOUT_WIDTH_MAX, 'replicas');
      const failureDomain = checkDomain(fields.failureDomain ?? LAYOUT_DEFAULTS.failureDomain);
      return { pattern: 'replicated', stripeSize, stripeCount: count(), replicas, failureDomain };
    }
    case 'ec': {
      refuseFields(fields, ['stripeCount', 'replicas']);
      if (fields.k === undefined || fields.m === undefined) invalid('ec needs k and m, as in ec:4+2');
      const k = wholeIn(fields.k, 1, LAYOUT_WIDTH_MAX - 1, 'k');
      const m = wholeIn(fields.m, 1, LAYOUT_WIDTH_MAX - 1, 'm');
      if (k + m > LAYOUT_WIDTH_MAX)
        invalid(`ec ${k}+${m}: k+m must be at most ${LAYOUT_WIDTH_MAX}`, { k, m });
      const failureDomain = checkDomain(fields.failureDomain ?? LAYOUT_DEFAULTS.failureDomain);
      return { pattern: 'ec', stripeSize, k, m, failureDomain };
    }
    default:
      return invalid(`pattern ${JSON.stringify(fields.pattern)}: expected raid0, replicated or ec`);
  }
}

/** The rule whose pool places this layout's objects. */
export function ruleOf(layout: StripedLayout): RuleSpec {
  if (layout.pattern === 'raid0') return { kind: 'replicated', size: 1, failureDomain: 'ost' };
  if (layout.pattern === 'replicated')
    return { kind: 'replicated', size: layout.replicas, failureDomain: layout.failureDomain };
  return { kind: 'erasure', k: layout.k, m: layout.m, failureDomain: layout.failureDomain };
}

/** Checks the map can place the layout's striped component now; the message says what is short. */
export function checkLayoutOnMap(whole: Layout, map: ClusterMap): void {
  const layout = stripedPartOf(whole);
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

/** Objects a file's data units are spread over: stripeCount, or k for ec. */
export function dataWidth(layout: StripedLayout): number {
  return layout.pattern === 'ec' ? layout.k : layout.stripeCount;
}
