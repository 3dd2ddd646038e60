// Original file: proto/stripefs/v1/stripefs.proto

import type { ClusterMap as _stripefs_v1_ClusterMap, ClusterMap__Output as _stripefs_v1_ClusterMap__Output } from '../../stripefs/v1/ClusterMap.js';
import type { Long } from '@grpc/proto-loader';

export interface GetMapResponse {
  'map'?: (_stripefs_v1_ClusterMap | null);
  'writableEpoch'?: (number | string | Long);
  'framePort'?: (number);
  '_writableEpoch'?: "writableEpoch";
  '_framePort'?: "framePort";
}

export interface GetMapResponse__Output {
  'map': (_stripefs_v1_ClusterMap__Output | null);
  'writableEpoch'?: (number);
  'framePort'?: (number);
  '_writableEpoch'?: "writableEpoch";
  '_framePort'?: "framePort";
}
