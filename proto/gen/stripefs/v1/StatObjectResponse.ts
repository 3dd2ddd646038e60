// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface StatObjectResponse {
  'size'?: (number | string | Long);
  'version'?: (number | string | Long);
  'mtimeMs'?: (number | string | Long);
}

export interface StatObjectResponse__Output {
  'size': (number);
  'version': (number);
  'mtimeMs': (number);
}
