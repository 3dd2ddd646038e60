// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface CommitRequest {
  'inode'?: (number | string | Long);
  'size'?: (number | string | Long);
  'mtimeMs'?: (number | string | Long);
  'growOnly'?: (boolean);
  'domOffset'?: (number | string | Long);
  'domData'?: (Buffer | Uint8Array | string);
}

export interface CommitRequest__Output {
  'inode': (number);
  'size': (number);
  'mtimeMs': (number);
  'growOnly': (boolean);
  'domOffset': (number);
  'domData': (Buffer);
}
