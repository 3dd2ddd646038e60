// A pure cluster state for the tests of placement-driven rules (holders,
// map views): OSSs registered on hosts with two 1 TiB OSTs each, racks
// assigned as `rackOf` says, and the pools given. No process, no IO.
import { addPool, type ClusterState, initialState, registerOss } from '../../mds/cluster/state.js';

type Registration = Parameters<typeof registerOss>[1];

import type { RuleSpec } from '../../placement/index.js';

/** The registration of OSS `oss<h>` on host `h<h>` in rack `r<rack>`, with 1 TiB OSTs named `osts`. */
export function ossRegistration(h: number, rack: number, osts = ['ost0', 'ost1']): Registration {
  return {
    ossId: `oss${h}`,
    host: `h${h}`,
    rack: `r${rack}`,
    datacenter: '',
    grpcAddress: `127.0.0.1:${1000 + h}`,
    bulkAddress: `127.0.0.1:${2000 + h}`,
    adminAddress: '',
    osts: osts.map((name) => ({ name, totalBytes: 2 ** 40, usedBytes: 0 })),
  };
}

export function pureCluster(
  hosts: number,
  pools: { rule: RuleSpec; pgCount: number }[],
  rackOf: (host: number) => number = (h) => h % 3,
): ClusterState {
  let state = initialState();
  for (let h = 0; h < hosts; h++) state = registerOss(state, ossRegistration(h, rackOf(h))).state;
  for (const pool of pools) state = addPool(state, pool.rule, pool.pgCount);
  return state;
}
