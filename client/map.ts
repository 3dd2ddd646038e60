// The cluster map as the client uses it: the placement map and pools plus each
// OST's addresses on the client's network, decoded by the shared codec (wire/map.ts).
export {
  CLIENT_NETWORKS,
  type ClientNetwork,
  type MapView,
  mapViewFromWire,
  type OstAddresses,
  type OstEndpoint,
  ostAddressesOf,
} from '../wire/index.js';
