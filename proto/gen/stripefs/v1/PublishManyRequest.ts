// Original file: proto/stripefs/v1/stripefs.proto

import type { PublishRequest as _stripefs_v1_PublishRequest, PublishRequest__Output as _stripefs_v1_PublishRequest__Output } from '../../stripefs/v1/PublishRequest.js';

export interface PublishManyRequest {
  'items'?: (_stripefs_v1_PublishRequest)[];
}

export interface PublishManyRequest__Output {
  'items': (_stripefs_v1_PublishRequest__Output)[];
}
