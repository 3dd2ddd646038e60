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

export type RuleSpec =
  | { kind: 'replicated'; size: number; failureDomain: string; root?: string }
  | { kind: 'erasure'; k: number; m: number; failureDomain: string; root?: string };

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
