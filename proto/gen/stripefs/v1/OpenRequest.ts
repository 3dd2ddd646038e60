// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface OpenRequest {
  'path'?: (string);
  'inode'?: (number | string | Long);
  'xattrName'?: (string);
}

export interface OpenRequest__Output {
  'path': (string);
  'inode': (number);
  'xattrName': (string);
}
