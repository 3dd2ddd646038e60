// Original file: proto/stripefs/v1/stripefs.proto

import type { OpenResponse as _stripefs_v1_OpenResponse, OpenResponse__Output as _stripefs_v1_OpenResponse__Output } from '../../stripefs/v1/OpenResponse.js';
import type { ItemError as _stripefs_v1_ItemError, ItemError__Output as _stripefs_v1_ItemError__Output } from '../../stripefs/v1/ItemError.js';

export interface OpenManyResult {
  'open'?: (_stripefs_v1_OpenResponse | null);
  'error'?: (_stripefs_v1_ItemError | null);
}

export interface OpenManyResult__Output {
  'open': (_stripefs_v1_OpenResponse__Output | null);
  'error': (_stripefs_v1_ItemError__Output | null);
}
