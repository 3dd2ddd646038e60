// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface AuthIdentity {
  'name'?: (string);
  'caps'?: (string);
  'admin'?: (boolean);
  'allow'?: (string)[];
  'createdMs'?: (number | string | Long);
  'rotatedMs'?: (number | string | Long);
  'service'?: (boolean);
}

export interface AuthIdentity__Output {
  'name': (string);
  'caps': (string);
  'admin': (boolean);
  'allow': (string)[];
  'createdMs': (number);
  'rotatedMs': (number);
  'service': (boolean);
}
