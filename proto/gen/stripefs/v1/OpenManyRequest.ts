// Original file: proto/stripefs/v1/stripefs.proto

import type { OpenRequest as _stripefs_v1_OpenRequest, OpenRequest__Output as _stripefs_v1_OpenRequest__Output } from '../../stripefs/v1/OpenRequest.js';

export interface OpenManyRequest {
  'items'?: (_stripefs_v1_OpenRequest)[];
}

export interface OpenManyRequest__Output {
  'items': (_stripefs_v1_OpenRequest__Output)[];
}
