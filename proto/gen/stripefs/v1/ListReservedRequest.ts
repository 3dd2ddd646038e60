// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface ListReservedRequest {
  'afterInode'?: (number | string | Long);
  'limit'?: (number);
}

export interface ListReservedRequest__Output {
  'afterInode': (number);
  'limit': (number);
}
