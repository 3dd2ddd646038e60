// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface AuthClient {
  'id'?: (string);
  'identity'?: (string);
  'address'?: (string);
  'firstMs'?: (number | string | Long);
  'lastMs'?: (number | string | Long);
  'calls'?: (number | string | Long);
  'evicted'?: (boolean);
}

export interface AuthClient__Output {
  'id': (string);
  'identity': (string);
  'address': (string);
  'firstMs': (number);
  'lastMs': (number);
  'calls': (number);
  'evicted': (boolean);
}
