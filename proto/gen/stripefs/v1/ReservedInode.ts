// Original file: proto/stripefs/v1/stripefs.proto

import type { Attr as _stripefs_v1_Attr, Attr__Output as _stripefs_v1_Attr__Output } from '../../stripefs/v1/Attr.js';

export interface ReservedInode {
  'attr'?: (_stripefs_v1_Attr | null);
}

export interface ReservedInode__Output {
  'attr': (_stripefs_v1_Attr__Output | null);
}
