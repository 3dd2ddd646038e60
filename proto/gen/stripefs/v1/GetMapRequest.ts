// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface GetMapRequest {
  'epoch'?: (number | string | Long);
}

export interface GetMapRequest__Output {
  'epoch': (number);
}
