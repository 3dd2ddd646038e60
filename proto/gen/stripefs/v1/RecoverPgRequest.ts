// Original file: proto/stripefs/v1/stripefs.proto

import type { Rule as _stripefs_v1_Rule, Rule__Output as _stripefs_v1_Rule__Output } from '../../stripefs/v1/Rule.js';
import type { RecoverSource as _stripefs_v1_RecoverSource, RecoverSource__Output as _stripefs_v1_RecoverSource__Output } from '../../stripefs/v1/RecoverSource.js';
import type { RecoverMode as _stripefs_v1_RecoverMode, RecoverMode__Output as _stripefs_v1_RecoverMode__Output } from '../../stripefs/v1/RecoverMode.js';
import type { Long } from '@grpc/proto-loader';

export interface RecoverPgRequest {
  'poolId'?: (number);
  'pg'?: (number);
  'targetOstId'?: (number);
  'position'?: (number);
  'rule'?: (_stripefs_v1_Rule | null);
  'sources'?: (_stripefs_v1_RecoverSource)[];
  'mapEpoch'?: (number | string | Long);
  'bytesPerSec'?: (number | string | Long);
  'mode'?: (_stripefs_v1_RecoverMode);
  'objectIds'?: (string)[];
  'creditBytes'?: (number | string | Long);
}

export interface RecoverPgRequest__Output {
  'poolId': (number);
  'pg': (number);
  'targetOstId': (number);
  'position': (number);
  'rule': (_stripefs_v1_Rule__Output | null);
  'sources': (_stripefs_v1_RecoverSource__Output)[];
  'mapEpoch': (number);
  'bytesPerSec': (number);
  'mode': (_stripefs_v1_RecoverMode__Output);
  'objectIds': (string)[];
  'creditBytes': (number);
}
