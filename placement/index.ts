export { cephStepsOf, toCephCrushText } from './ceph-export.js';
export { parseCephCrushText } from './ceph-parse.js';
export { CEPH_OPTIMAL_TUNABLES, type CephImport, type CephRule, type CephRuleStep } from './ceph-types.js';
export { PlacementError, type PlacementErrorCode } from './errors.js';
export { expectedShares, waterFill } from './expectation.js';
export { explainInput, formatExplain } from './explain.js';
export { hash32x3, hashString } from './hash.js';
export * from './limits.js';
export { buildTopology, parseTopologySpec, type TopologySpec } from './map-build.js';
export {
  addOsts,
  countFailureDomains,
  failureDomainOf,
  removeOsts,
  setOstState,
  setOstWeight,
} from './map-edit.js';
export { validateMap } from './map-validate.js';
export { eachPgMembers, ostsLeavingPgs, type PgMembers } from './pg-moves.js';
export {
  objectToPg,
  type Placer,
  pgInput,
  placeInput,
  placeObject,
  placePg,
  placerFor,
  stableMod,
} from './place.js';
export { checkRuleSpec, formatRuleSpec, parseRuleSpec, ruleWidth } from './rule.js';
export {
  checkRange,
  type DiffResult,
  diffMaps,
  type InputRange,
  idealMovedFraction,
  movedMembers,
  type SimulateResult,
  simulate,
  summarise,
} from './simulate.js';
export * from './types.js';
