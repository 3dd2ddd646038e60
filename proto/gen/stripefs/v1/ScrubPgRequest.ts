// Original file: proto/stripefs/v1/stripefs.proto

import type { Rule as _stripefs_v1_Rule, Rule__Output as _stripefs_v1_Rule__Output } from '../../stripefs/v1/Rule.js';
import type { RecoverSource as _stripefs_v1_RecoverSource, RecoverSource__Output as _stripefs_v1_RecoverSource__Output } from '../../stripefs/v1/RecoverSource.js';
import type { Long } from '@grpc/proto-loader';

export interface ScrubPgRequest {
  'poolId'?: (number);
  'pg'?: (number);
  'rule'?: (_stripefs_v1_Rule | null);
  'members'?: (_stripefs_v1_RecoverSource)[];
  'mapEpoch'?: (number | string | Long);
  'bytesPerSec'?: (number | string | Long);
  'repair'?: (boolean);
}

export interface ScrubPgRequest__Output {
  'poolId': (number);
  'pg': (number);
  'rule': (_stripefs_v1_Rule__Output | null);
  'members': (_stripefs_v1_RecoverSource__Output)[];
  'mapEpoch': (number);
  'bytesPerSec': (number);
  'repair': (boolean);
}
