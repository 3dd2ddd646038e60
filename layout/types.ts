// A file layout as a value: a union discriminated by `pattern`, one variant per
// way of striping. Every variant names the fields of the others as `?: undefined`,
// so code may read `layout.k` on any layout (undefined where it does not apply)
// and gets a number once it has narrowed the pattern.
import { UNITS } from '../common/limits.js';

export type LayoutPattern = 'raid0' | 'replicated' | 'ec';

/** Lustre's plain striping: unit `stripeSize` bytes round-robin over `stripeCount` objects, one copy each. */
export interface Raid0Layout {
  pattern: 'raid0';
  /** Bytes of one stripe unit: a power of two from 64 KiB to 64 MiB. */
  stripeSize: number;
  stripeCount: number;
  replicas?: undefined;
  k?: undefined;
  m?: undefined;
  failureDomain?: undefined;
}

/** raid0's striping with every object kept on `replicas` OSTs in distinct failure domains. */
export interface ReplicatedLayout {
  pattern: 'replicated';
  stripeSize: number;
  stripeCount: number;
  replicas: number;
  failureDomain: string;
  k?: undefined;
  m?: undefined;
}

/** Each stripe of k data units encoded into k+m chunks (Reed-Solomon) in k+m failure domains. */
export interface EcLayout {
  pattern: 'ec';
  stripeSize: number;
  k: number;
  m: number;
  failureDomain: string;
  stripeCount?: undefined;
  replicas?: undefined;
}

/** A layout whose data lives on OSTs, striped: what the striping maths takes. */
export type StripedLayout = Raid0Layout | ReplicatedLayout | EcLayout;

/**
 * A file's layout. Today one striped component holds the whole file. Data on the MDS (Lustre's
 * PFL `-E 64K -L mdt -E -1 ...`) will join this union as another variant whose components are
 * an MDS part and a StripedLayout, so code that stripes keeps taking StripedLayout.
 */
export type Layout = StripedLayout;

/** What a caller may give: the pattern and any fields; the others take their defaults. */
export interface LayoutInput {
  pattern: LayoutPattern;
  stripeSize?: number | undefined;
  stripeCount?: number | undefined;
  replicas?: number | undefined;
  k?: number | undefined;
  m?: number | undefined;
  failureDomain?: string | undefined;
}

/** Fields as they arrive (text, wire, flags), before checkLayout says whether they form a layout. */
export type LayoutFields = Omit<LayoutInput, 'pattern'> & { pattern?: string | undefined };

/** A stored file layout: the layout plus the pool the MDS placed it in. */
export interface FileLayout {
  layout: Layout;
  poolId: number;
}

/** Defaults of the fields a layout may leave out (in text: omitted; on the wire: zero). */
export const LAYOUT_DEFAULTS = {
  stripeSizeBytes: 1 * UNITS.MiB,
  stripeCount: 1,
  replicas: 3,
  failureDomain: 'host',
} as const;

export const DEFAULT_STRIPE_SIZE_BYTES = LAYOUT_DEFAULTS.stripeSizeBytes;
