// Original file: proto/stripefs/v1/stripefs.proto

import type { OstAction as _stripefs_v1_OstAction, OstAction__Output as _stripefs_v1_OstAction__Output } from '../../stripefs/v1/OstAction.js';

export interface AdminOstRequest {
  'ostId'?: (number);
  'action'?: (_stripefs_v1_OstAction);
  'weight'?: (number | string);
}

export interface AdminOstRequest__Output {
  'ostId': (number);
  'action': (_stripefs_v1_OstAction__Output);
  'weight': (number);
}
