// Original file: proto/stripefs/v1/stripefs.proto

import type { UnlinkRequest as _stripefs_v1_UnlinkRequest, UnlinkRequest__Output as _stripefs_v1_UnlinkRequest__Output } from '../../stripefs/v1/UnlinkRequest.js';

export interface UnlinkManyRequest {
  'items'?: (_stripefs_v1_UnlinkRequest)[];
}

export interface UnlinkManyRequest__Output {
  'items': (_stripefs_v1_UnlinkRequest__Output)[];
}
