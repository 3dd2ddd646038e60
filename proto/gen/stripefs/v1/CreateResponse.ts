// Original file: proto/stripefs/v1/stripefs.proto

import type { Attr as _stripefs_v1_Attr, Attr__Output as _stripefs_v1_Attr__Output } from '../../stripefs/v1/Attr.js';
import type { Long } from '@grpc/proto-loader';

export interface CreateResponse {
  'attr'?: (_stripefs_v1_Attr | null);
  'mapEpoch'?: (number | string | Long);
  'dataStored'?: (boolean);
}

export interface CreateResponse__Output {
  'attr': (_stripefs_v1_Attr__Output | null);
  'mapEpoch': (number);
  'dataStored': (boolean);
}
