// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface GetPgHoldersResponse {
  'holders'?: (number)[];
  'placement'?: (number)[];
  'mapEpoch'?: (number | string | Long);
  'clean'?: (boolean);
}

export interface GetPgHoldersResponse__Output {
  'holders': (number)[];
  'placement': (number)[];
  'mapEpoch': (number);
  'clean': (boolean);
}
