// Original file: proto/stripefs/v1/stripefs.proto

import type { StatManyResult as _stripefs_v1_StatManyResult, StatManyResult__Output as _stripefs_v1_StatManyResult__Output } from '../../stripefs/v1/StatManyResult.js';

export interface StatManyResponse {
  'results'?: (_stripefs_v1_StatManyResult)[];
}

export interface StatManyResponse__Output {
  'results': (_stripefs_v1_StatManyResult__Output)[];
}
