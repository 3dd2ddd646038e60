// The MDS's public face: the builder, the layout text form and the pure cores others may reuse.
export { buildMds, type MdsDeps, type MdsHandle } from './build.js';
export { type DetectorActions, detectFailures, type OstLiveness } from './cluster/detector.js';
export {
  checkLayoutAgainstMap,
  formatLayout,
  type LayoutRecord,
  layoutFromWire,
  layoutToWire,
  parseLayoutText,
  ruleOf,
} from './layout.js';
export { type PgState, type PgSummary, pgStateOf, summarizePgs } from './pgstate.js';
