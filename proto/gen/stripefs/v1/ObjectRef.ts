// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface ObjectRef {
  'ostId'?: (number);
  'objectId'?: (string);
  'poolId'?: (number);
  'pg'?: (number);
  'mapEpoch'?: (number | string | Long);
}

export interface ObjectRef__Output {
  'ostId': (number);
  'objectId': (string);
  'poolId': (number);
  'pg': (number);
  'mapEpoch': (number);
}
