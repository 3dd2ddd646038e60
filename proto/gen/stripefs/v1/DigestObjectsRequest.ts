// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface DigestObjectsRequest {
  'ostId'?: (number);
  'poolId'?: (number);
  'pg'?: (number);
  'objectIds'?: (string)[];
  'bytesPerSec'?: (number | string | Long);
}

export interface DigestObjectsRequest__Output {
  'ostId': (number);
  'poolId': (number);
  'pg': (number);
  'objectIds': (string)[];
  'bytesPerSec': (number);
}
