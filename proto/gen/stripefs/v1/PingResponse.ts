// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface PingResponse {
  'payload'?: (string);
  'server'?: (string);
  'mapEpoch'?: (number | string | Long);
}

export interface PingResponse__Output {
  'payload': (string);
  'server': (string);
  'mapEpoch': (number);
}
