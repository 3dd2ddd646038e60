// The client's names for the one layout module (layout/) and its wire codec
// (wire/layout.ts), so client files import layouts from one place.
export {
  checkLayout,
  DEFAULT_STRIPE_SIZE_BYTES,
  dataWidth,
  type FileLayout,
  formatLayout,
  type Layout,
  type LayoutInput,
  type LayoutPattern,
  parseLayout,
  type StripedLayout,
  stripedPartOf,
} from '../layout/index.js';
export { layoutFromWire, layoutToWire, requireLayoutFromWire, wholeLayoutFromWire } from '../wire/index.js';
