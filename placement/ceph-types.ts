import type { RuleSpec } from './types.js';

/** One step of a Ceph CRUSH rule, as far as stripefs supports them. */
export type CephRuleStep =
  | { op: 'take'; item: string }
  | { op: 'choose' | 'chooseleaf'; mode: 'firstn' | 'indep'; num: number; type: string }
  | { op: 'emit' }
  | { op: 'set_choose_tries' | 'set_chooseleaf_tries'; value: number };

export interface CephRule {
  id: number;
  name: string;
  type: 'replicated' | 'erasure';
  steps: CephRuleStep[];
  /** The stripefs rule with the same intent, when the steps are take / choose... / chooseleaf / emit. */
  asRuleSpec?: RuleSpec;
  /** Why there is no asRuleSpec (for the CLI's error). */
  notRunnable?: string;
}

export interface CephImport {
  map: import('./types.js').ClusterMap;
  rules: CephRule[];
  tunables: Record<string, number>;
  /** Ceph type id of each entry of map.types (Ceph allows gaps). */
  typeIds: number[];
}

/** Tunables written on export: Ceph's "optimal" (jewel+) profile. */
export const CEPH_OPTIMAL_TUNABLES: Record<string, number> = {
  choose_local_tries: 0,
  choose_local_fallback_tries: 0,
  choose_total_tries: 50,
  chooseleaf_descend_once: 1,
  chooseleaf_vary_r: 1,
  chooseleaf_stable: 1,
  straw_calc_version: 1,
  allowed_bucket_algs: 54,
};
