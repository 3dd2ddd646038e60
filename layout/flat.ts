// The flat form the wire Layout and the MDS's stored records share: every
// field present, 0 or '' where the pattern has none (or the caller gave none).
// A dom layout flattens to its striped component's fields plus domBytes.
import type { Layout, LayoutFields } from './types.js';

export interface FlatLayoutFields {
  stripeSize: number;
  stripeCount: number;
  replicas: number;
  k: number;
  m: number;
  failureDomain: string;
  /** Bytes kept on the MDS before the striped component (0: none). */
  domBytes: number;
}

/** The striped pattern of flat fields (a dom layout's component's); undefined when none is named. */
export function flatPatternOf(layout: LayoutFields | Layout): string | undefined {
  return layout.pattern === 'dom' && 'rest' in layout ? layout.rest.pattern : layout.pattern;
}

export function flatFields(layout: LayoutFields | Layout): FlatLayoutFields {
  if (layout.pattern === 'dom' && 'rest' in layout)
    return { ...flatFields(layout.rest), domBytes: layout.domBytes };
  const fields = layout as LayoutFields;
  return {
    stripeSize: fields.stripeSize ?? 0,
    stripeCount: fields.stripeCount ?? 0,
    replicas: fields.replicas ?? 0,
    k: fields.k ?? 0,
    m: fields.m ?? 0,
    failureDomain: fields.failureDomain ?? '',
    domBytes: fields.domBytes ?? 0,
  };
}
