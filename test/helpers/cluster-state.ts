// A pure cluster state for the tests of placement-driven rules (holders,
// map views): OSSs registered on hosts with two 1 TiB OSTs each, racks
// assigned as `rackOf` says, and the pools given. No process, no IO.
import { addPool, type ClusterState, initialState, registerOss } from '../../mds/cluster/state.js';
import type { RuleSpec } from '../../placement/index.js';

export function pureCluster(
  hosts: number,
  pools: { rule: RuleSpec; pgCount: number }[],
  rackOf: (host: number) => number = (h) => h % 3,
): ClusterState {
  let state = initialState();
  for (let h = 0; h < hosts; h++)
    state = registerOss(state, {
      ossId: `oss${h}`,
      host: `h${h}`,
      rack: `r${rackOf(h)}`,
      datacenter: '',
      grpcAddress: `127.0.0.1:${1000 + h}`,
      bulkAddress: `127.0.0.1:${2000 + h}`,
      adminAddress: '',
      osts: [
        { name: 'ost0', totalBytes: 2 ** 40, usedBytes: 0 },
        { name: 'ost1', totalBytes: 2 ** 40, usedBytes: 0 },
      ],
    }).state;
  for (const pool of pools) state = addPool(state, pool.rule, pool.pgCount);
  return state;
}
