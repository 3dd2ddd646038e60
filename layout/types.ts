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
 * Data on the MDS (Lustre's DoM, PFL's `-E 64K -L mdt -E -1 ...`): a file's first `domBytes`
 * live in the MDS database with its namespace record; bytes from `domBytes` on live in `rest`,
 * which holds them as a file of its own (component offset = file offset - domBytes).
 */
export interface DomLayout {
  pattern: 'dom';
  /** A multiple of LIMITS.domBytesUnit (4 KiB), at most LIMITS.domBytesMax. */
  domBytes: number;
  rest: StripedLayout;
  stripeSize?: undefined;
  stripeCount?: undefined;
  replicas?: undefined;
  k?: undefined;
  m?: undefined;
  failureDomain?: undefined;
}

/** A file's layout: one striped component, or data on the MDS followed by one. */
export type Layout = StripedLayout | DomLayout;

/** What a caller may give for a striped layout: the pattern and any fields; the others take their defaults. */
export interface StripedLayoutInput {
  pattern: LayoutPattern;
  stripeSize?: number | undefined;
  stripeCount?: number | undefined;
  replicas?: number | undefined;
  k?: number | undefined;
  m?: number | undefined;
  failureDomain?: string | undefined;
}

/** What a caller may give: a striped layout, or data on the MDS followed by one. */
export type LayoutInput = StripedLayoutInput | { pattern: 'dom'; domBytes: number; rest: StripedLayoutInput };

/**
 * Fields as they arrive (text, wire, flags), flat, before checkLayout says whether they form a
 * layout: the striped component's fields plus the bytes kept on the MDS (0 or absent: none).
 */
export type LayoutFields = Omit<StripedLayoutInput, 'pattern'> & {
  pattern?: string | undefined;
  domBytes?: number | undefined;
};

/**
 * A stored file layout as the striping code takes it: the striped component (`layout`), the pool
 * the MDS placed it in, and the bytes before it that live on the MDS (absent or 0: none). The
 * striped component holds file bytes from domBytes on, at offset (file offset - domBytes).
 */
export interface FileLayout {
  layout: StripedLayout;
  poolId: number;
  domBytes?: number;
}

/** The striped component of a layout (the layout itself when it keeps nothing on the MDS). */
export function stripedPartOf(layout: Layout): StripedLayout {
  return layout.pattern === 'dom' ? layout.rest : layout;
}

/** Bytes a layout keeps on the MDS (0: none). */
export function domBytesOf(layout: Layout): number {
  return layout.pattern === 'dom' ? layout.domBytes : 0;
}

/** The whole layout of a FileLayout, as stat() and getstripe show it. */
export function layoutOfFile(file: FileLayout): Layout {
  return file.domBytes ? { pattern: 'dom', domBytes: file.domBytes, rest: file.layout } : file.layout;
}

/** The FileLayout of a layout placed in `poolId`. */
export function fileLayoutOf(layout: Layout, poolId: number): FileLayout {
  const domBytes = domBytesOf(layout);
  return domBytes
    ? { layout: stripedPartOf(layout), poolId, domBytes }
    : { layout: stripedPartOf(layout), poolId };
}

/** Defaults of the fields a layout may leave out (in text: omitted; on the wire: zero). */
export const LAYOUT_DEFAULTS = {
  stripeSizeBytes: 1 * UNITS.MiB,
  stripeCount: 1,
  replicas: 3,
  failureDomain: 'host',
} as const;

export const DEFAULT_STRIPE_SIZE_BYTES = LAYOUT_DEFAULTS.stripeSizeBytes;
