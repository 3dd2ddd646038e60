// Original file: proto/stripefs/v1/stripefs.proto

import type { ItemError as _stripefs_v1_ItemError, ItemError__Output as _stripefs_v1_ItemError__Output } from '../../stripefs/v1/ItemError.js';

export interface UnlinkManyResult {
  'error'?: (_stripefs_v1_ItemError | null);
}

export interface UnlinkManyResult__Output {
  'error': (_stripefs_v1_ItemError__Output | null);
}
