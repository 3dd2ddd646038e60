// The MDS's public face: the builder and the pure cores others may reuse.
export { buildMds, type MdsDeps, type MdsHandle } from './build.js';
export { type DetectorActions, detectFailures, type OstLiveness } from './cluster/detector.js';
export { type PgState, type PgSummary, pgStateOf, summarizePgs } from './pgstate.js';
