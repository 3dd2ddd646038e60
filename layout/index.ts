// The file layout: one union type, one text form, one validator, used by the
// MDS, the client and the CLI. Its protobuf form is in wire/.
export {
  checkDomBytes,
  checkLayout,
  checkLayoutOnMap,
  checkStripeSize,
  dataWidth,
  FAILURE_DOMAIN_PATTERN,
  LAYOUT_WIDTH_MAX,
  ruleOf,
} from './check.js';
export { type FlatLayoutFields, flatFields, flatPatternOf } from './flat.js';
export { formatLayout, formatStripeSize, parseLayout, scanLayout } from './text.js';
export * from './types.js';
