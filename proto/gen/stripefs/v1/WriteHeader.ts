// Original file: proto/stripefs/v1/stripefs.proto

import type { ObjectRef as _stripefs_v1_ObjectRef, ObjectRef__Output as _stripefs_v1_ObjectRef__Output } from '../../stripefs/v1/ObjectRef.js';
import type { Long } from '@grpc/proto-loader';

export interface WriteHeader {
  'ref'?: (_stripefs_v1_ObjectRef | null);
  'offset'?: (number | string | Long);
  'length'?: (number | string | Long);
  'crc32c'?: (number);
  'truncate'?: (boolean);
  'version'?: (number | string | Long);
}

export interface WriteHeader__Output {
  'ref': (_stripefs_v1_ObjectRef__Output | null);
  'offset': (number);
  'length': (number);
  'crc32c': (number);
  'truncate': (boolean);
  'version': (number);
}
