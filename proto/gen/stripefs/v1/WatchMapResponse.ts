// Original file: proto/stripefs/v1/stripefs.proto

import type { ClusterMap as _stripefs_v1_ClusterMap, ClusterMap__Output as _stripefs_v1_ClusterMap__Output } from '../../stripefs/v1/ClusterMap.js';
import type { Long } from '@grpc/proto-loader';

export interface WatchMapResponse {
  'map'?: (_stripefs_v1_ClusterMap | null);
  'writableEpoch'?: (number | string | Long);
  '_writableEpoch'?: "writableEpoch";
}

export interface WatchMapResponse__Output {
  'map': (_stripefs_v1_ClusterMap__Output | null);
  'writableEpoch'?: (number);
  '_writableEpoch'?: "writableEpoch";
}
