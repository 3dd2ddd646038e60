// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface GetXattrResponse {
  'value'?: (Buffer | Uint8Array | string);
  'inode'?: (number | string | Long);
}

export interface GetXattrResponse__Output {
  'value': (Buffer);
  'inode': (number);
}
