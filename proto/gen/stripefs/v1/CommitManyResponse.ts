// Original file: proto/stripefs/v1/stripefs.proto

import type { CommitManyResult as _stripefs_v1_CommitManyResult, CommitManyResult__Output as _stripefs_v1_CommitManyResult__Output } from '../../stripefs/v1/CommitManyResult.js';

export interface CommitManyResponse {
  'results'?: (_stripefs_v1_CommitManyResult)[];
}

export interface CommitManyResponse__Output {
  'results': (_stripefs_v1_CommitManyResult__Output)[];
}
