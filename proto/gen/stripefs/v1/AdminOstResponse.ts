// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface AdminOstResponse {
  'mapEpoch'?: (number | string | Long);
}

export interface AdminOstResponse__Output {
  'mapEpoch': (number);
}
