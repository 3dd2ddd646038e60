// Original file: proto/stripefs/v1/stripefs.proto

import type { ObjectRef as _stripefs_v1_ObjectRef, ObjectRef__Output as _stripefs_v1_ObjectRef__Output } from '../../stripefs/v1/ObjectRef.js';

export interface FlushRequest {
  'ref'?: (_stripefs_v1_ObjectRef | null);
}

export interface FlushRequest__Output {
  'ref': (_stripefs_v1_ObjectRef__Output | null);
}
