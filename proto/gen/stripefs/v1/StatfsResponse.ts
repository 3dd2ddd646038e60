// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface StatfsResponse {
  'totalBytes'?: (number | string | Long);
  'usedBytes'?: (number | string | Long);
  'availableBytes'?: (number | string | Long);
  'files'?: (number | string | Long);
  'filesFree'?: (number | string | Long);
  'ostsIn'?: (number);
  'ostsUp'?: (number);
  'domFiles'?: (number | string | Long);
  'domBytes'?: (number | string | Long);
}

export interface StatfsResponse__Output {
  'totalBytes': (number);
  'usedBytes': (number);
  'availableBytes': (number);
  'files': (number);
  'filesFree': (number);
  'ostsIn': (number);
  'ostsUp': (number);
  'domFiles': (number);
  'domBytes': (number);
}
