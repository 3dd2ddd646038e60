// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface WriteChunkResponse {
  'objectSize'?: (number | string | Long);
  'version'?: (number | string | Long);
}

export interface WriteChunkResponse__Output {
  'objectSize': (number);
  'version': (number);
}
