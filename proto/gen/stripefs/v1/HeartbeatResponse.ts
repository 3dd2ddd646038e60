// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface HeartbeatResponse {
  'mapEpoch'?: (number | string | Long);
}

export interface HeartbeatResponse__Output {
  'mapEpoch': (number);
}
