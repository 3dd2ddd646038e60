// Original file: proto/stripefs/v1/stripefs.proto

import type { Attr as _stripefs_v1_Attr, Attr__Output as _stripefs_v1_Attr__Output } from '../../stripefs/v1/Attr.js';
import type { XattrEntry as _stripefs_v1_XattrEntry, XattrEntry__Output as _stripefs_v1_XattrEntry__Output } from '../../stripefs/v1/XattrEntry.js';
import type { Long } from '@grpc/proto-loader';

export interface OpenResponse {
  'attr'?: (_stripefs_v1_Attr | null);
  'mapEpoch'?: (number | string | Long);
  'domData'?: (Buffer | Uint8Array | string);
  'domDataOmitted'?: (boolean);
  'xattr'?: (_stripefs_v1_XattrEntry | null);
}

export interface OpenResponse__Output {
  'attr': (_stripefs_v1_Attr__Output | null);
  'mapEpoch': (number);
  'domData': (Buffer);
  'domDataOmitted': (boolean);
  'xattr': (_stripefs_v1_XattrEntry__Output | null);
}
