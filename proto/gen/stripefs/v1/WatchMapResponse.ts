// Original file: proto/stripefs/v1/stripefs.proto

import type { ClusterMap as _stripefs_v1_ClusterMap, ClusterMap__Output as _stripefs_v1_ClusterMap__Output } from '../../stripefs/v1/ClusterMap.js';

export interface WatchMapResponse {
  'map'?: (_stripefs_v1_ClusterMap | null);
}

export interface WatchMapResponse__Output {
  'map': (_stripefs_v1_ClusterMap__Output | null);
}
