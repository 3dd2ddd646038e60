// Original file: proto/stripefs/v1/stripefs.proto

import type { UnlinkManyResult as _stripefs_v1_UnlinkManyResult, UnlinkManyResult__Output as _stripefs_v1_UnlinkManyResult__Output } from '../../stripefs/v1/UnlinkManyResult.js';

export interface UnlinkManyResponse {
  'results'?: (_stripefs_v1_UnlinkManyResult)[];
}

export interface UnlinkManyResponse__Output {
  'results': (_stripefs_v1_UnlinkManyResult__Output)[];
}
