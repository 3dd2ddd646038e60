// Original file: proto/stripefs/v1/stripefs.proto

import type { CommitRequest as _stripefs_v1_CommitRequest, CommitRequest__Output as _stripefs_v1_CommitRequest__Output } from '../../stripefs/v1/CommitRequest.js';

export interface CommitManyRequest {
  'items'?: (_stripefs_v1_CommitRequest)[];
}

export interface CommitManyRequest__Output {
  'items': (_stripefs_v1_CommitRequest__Output)[];
}
