export type OstState = { up: boolean; in: boolean };

export interface OstItem {
  id: number; // >= 0
  name: string;
  weight: number; // capacity, TiB or as given, float >= 0
  state: OstState;
  host?: string;
}

export interface BucketItem {
  id: number; // < 0
  name: string;
  type: string; // 'root' | 'datacenter' | 'rack' | 'host' | ...
  children: number[]; // ids of buckets or OSTs
}

export interface ClusterMap {
  epoch: number;
  types: string[]; // leaf first: ['ost', 'host', 'rack', 'datacenter', 'root']
  osts: OstItem[];
  buckets: BucketItem[];
  rootName: string;
}

/**
 * One choose step of a multi-step rule: pick `count` distinct items of `type` under every item
 * the previous step produced (the last step picks failure domains and a leaf in each). As in
 * Ceph, count <= 0 means (rule width + count).
 */
export interface ChooseStep {
  type: string;
  count: number;
}

/**
 * A rule. Without `steps` it is one choose step: `size` (or k+m) distinct failure domains under
 * the root. With `steps`, they run in order, each on every item the previous one produced
 * (`rack=2,host=2`: two racks, then two hosts in each); the last step's type is failureDomain.
 */
export type RuleSpec =
  | { kind: 'replicated'; size: number; failureDomain: string; root?: string; steps?: ChooseStep[] }
  | { kind: 'erasure'; k: number; m: number; failureDomain: string; root?: string; steps?: ChooseStep[] };

export interface Pool {
  id: number;
  name: string;
  pgCount: number;
  rule: RuleSpec;
}

export interface Placement {
  /** replicated: dense list of chosen OST ids; erasure: positional, length k+m, -1 = hole */
  osts: number[];
  complete: boolean;
}

export type RejectReason = 'collision' | 'failure-domain-reused' | 'out' | 'down' | 'weight-zero' | 'no-leaf';

/** One line of an explained walk; see placement/README.md for the meaning of each field. */
export interface ExplainStep {
  slot: number; // replica rank or erasure position
  attempt: number; // draw number r fed to the hash
  level: string; // bucket type the draw happened at ('ost' for leaf draws)
  bucket: string; // bucket whose children were drawn from
  candidate: string; // winning child name
  candidateId: number;
  outcome: 'accepted' | 'rejected' | 'note';
  reason?: RejectReason | 'down-but-in' | 'replacement' | 'fallback';
  detail?: string;
}

export type Tracer = (step: ExplainStep) => void;

/** Hole marker in positional (erasure) placements. */
export const HOLE = -1;
