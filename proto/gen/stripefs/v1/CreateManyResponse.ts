// Original file: proto/stripefs/v1/stripefs.proto

import type { CreateManyResult as _stripefs_v1_CreateManyResult, CreateManyResult__Output as _stripefs_v1_CreateManyResult__Output } from '../../stripefs/v1/CreateManyResult.js';
import type { Long } from '@grpc/proto-loader';

export interface CreateManyResponse {
  'results'?: (_stripefs_v1_CreateManyResult)[];
  'mapEpoch'?: (number | string | Long);
}

export interface CreateManyResponse__Output {
  'results': (_stripefs_v1_CreateManyResult__Output)[];
  'mapEpoch': (number);
}
