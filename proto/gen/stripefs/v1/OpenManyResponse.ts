// Original file: proto/stripefs/v1/stripefs.proto

import type { OpenManyResult as _stripefs_v1_OpenManyResult, OpenManyResult__Output as _stripefs_v1_OpenManyResult__Output } from '../../stripefs/v1/OpenManyResult.js';

export interface OpenManyResponse {
  'results'?: (_stripefs_v1_OpenManyResult)[];
}

export interface OpenManyResponse__Output {
  'results': (_stripefs_v1_OpenManyResult__Output)[];
}
