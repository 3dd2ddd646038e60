// The protobuf codecs of every stripefs value that crosses a process: layouts,
// placement rules, the cluster map with its endpoints, object references. One
// copy each, used by the MDS, the OSS, the client and the CLI.
export { layoutFromWire, layoutToWire, requireLayoutFromWire, wholeLayoutFromWire } from './layout.js';
export {
  CLIENT_NETWORKS,
  type ClientNetwork,
  type MapView,
  mapToWire,
  mapViewFromWire,
  type OstAddresses,
  type OstDetails,
  type OstEndpoint,
  ostAddressesOf,
  type PoolWithMinSize,
} from './map.js';
export { type ObjectRefFields, objectRefFromWire } from './object-ref.js';
export { ruleFromWire, ruleToWire } from './rule.js';
