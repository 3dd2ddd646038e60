// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface ObjectDigest {
  'objectId'?: (string);
  'found'?: (boolean);
  'size'?: (number | string | Long);
  'version'?: (number | string | Long);
  'crc32c'?: (number);
  'errorCode'?: (string);
}

export interface ObjectDigest__Output {
  'objectId': (string);
  'found': (boolean);
  'size': (number);
  'version': (number);
  'crc32c': (number);
  'errorCode': (string);
}
