// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface ReadRangeResponse {
  'data'?: (Buffer | Uint8Array | string);
  'objectSize'?: (number | string | Long);
  'crc32c'?: (number);
  'blockStamps'?: (number | string | Long)[];
}

export interface ReadRangeResponse__Output {
  'data': (Buffer);
  'objectSize': (number);
  'crc32c': (number);
  'blockStamps': (number)[];
}
