// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface OstAnnounce {
  'name'?: (string);
  'totalBytes'?: (number | string | Long);
  'usedBytes'?: (number | string | Long);
  'id'?: (number);
  '_id'?: "id";
}

export interface OstAnnounce__Output {
  'name': (string);
  'totalBytes': (number);
  'usedBytes': (number);
  'id'?: (number);
  '_id'?: "id";
}
