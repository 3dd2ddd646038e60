// Original file: proto/stripefs/v1/stripefs.proto

import type { Attr as _stripefs_v1_Attr, Attr__Output as _stripefs_v1_Attr__Output } from '../../stripefs/v1/Attr.js';
import type { ItemError as _stripefs_v1_ItemError, ItemError__Output as _stripefs_v1_ItemError__Output } from '../../stripefs/v1/ItemError.js';

export interface PublishManyResult {
  'attr'?: (_stripefs_v1_Attr | null);
  'error'?: (_stripefs_v1_ItemError | null);
}

export interface PublishManyResult__Output {
  'attr': (_stripefs_v1_Attr__Output | null);
  'error': (_stripefs_v1_ItemError__Output | null);
}
