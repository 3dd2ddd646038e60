// Original file: proto/stripefs/v1/stripefs.proto

import type { ObjectDigest as _stripefs_v1_ObjectDigest, ObjectDigest__Output as _stripefs_v1_ObjectDigest__Output } from '../../stripefs/v1/ObjectDigest.js';

export interface DigestObjectsResponse {
  'digests'?: (_stripefs_v1_ObjectDigest)[];
}

export interface DigestObjectsResponse__Output {
  'digests': (_stripefs_v1_ObjectDigest__Output)[];
}
