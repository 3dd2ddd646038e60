// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface WatchMapRequest {
  'knownEpoch'?: (number | string | Long);
}

export interface WatchMapRequest__Output {
  'knownEpoch': (number);
}
