// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface ListedObject {
  'objectId'?: (string);
  'size'?: (number | string | Long);
  'version'?: (number | string | Long);
}

export interface ListedObject__Output {
  'objectId': (string);
  'size': (number);
  'version': (number);
}
