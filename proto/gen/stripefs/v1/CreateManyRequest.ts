// Original file: proto/stripefs/v1/stripefs.proto

import type { CreateRequest as _stripefs_v1_CreateRequest, CreateRequest__Output as _stripefs_v1_CreateRequest__Output } from '../../stripefs/v1/CreateRequest.js';

export interface CreateManyRequest {
  'items'?: (_stripefs_v1_CreateRequest)[];
}

export interface CreateManyRequest__Output {
  'items': (_stripefs_v1_CreateRequest__Output)[];
}
