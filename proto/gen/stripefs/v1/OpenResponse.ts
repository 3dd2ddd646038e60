// Original file: proto/stripefs/v1/stripefs.proto

import type { Attr as _stripefs_v1_Attr, Attr__Output as _stripefs_v1_Attr__Output } from '../../stripefs/v1/Attr.js';
import type { Long } from '@grpc/proto-loader';

export interface OpenResponse {
  'attr'?: (_stripefs_v1_Attr | null);
  'mapEpoch'?: (number | string | Long);
  'domData'?: (Buffer | Uint8Array | string);
  'domDataOmitted'?: (boolean);
}

export interface OpenResponse__Output {
  'attr': (_stripefs_v1_Attr__Output | null);
  'mapEpoch': (number);
  'domData': (Buffer);
  'domDataOmitted': (boolean);
}
