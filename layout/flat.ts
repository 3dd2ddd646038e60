// The flat form the wire Layout and the MDS's stored records share: every
// field present, 0 or '' where the pattern has none (or the caller gave none).
import type { LayoutFields } from './types.js';

export interface FlatLayoutFields {
  stripeSize: number;
  stripeCount: number;
  replicas: number;
  k: number;
  m: number;
  failureDomain: string;
}

export function flatFields(layout: LayoutFields): FlatLayoutFields {
  return {
    stripeSize: layout.stripeSize ?? 0,
    stripeCount: layout.stripeCount ?? 0,
    replicas: layout.replicas ?? 0,
    k: layout.k ?? 0,
    m: layout.m ?? 0,
    failureDomain: layout.failureDomain ?? '',
  };
}
