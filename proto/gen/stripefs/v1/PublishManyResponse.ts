// Original file: proto/stripefs/v1/stripefs.proto

import type { PublishManyResult as _stripefs_v1_PublishManyResult, PublishManyResult__Output as _stripefs_v1_PublishManyResult__Output } from '../../stripefs/v1/PublishManyResult.js';

export interface PublishManyResponse {
  'results'?: (_stripefs_v1_PublishManyResult)[];
}

export interface PublishManyResponse__Output {
  'results': (_stripefs_v1_PublishManyResult__Output)[];
}
