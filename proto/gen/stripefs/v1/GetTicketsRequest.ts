// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface GetTicketsRequest {
  'inodes'?: (number | string | Long)[];
  'service'?: (boolean);
}

export interface GetTicketsRequest__Output {
  'inodes': (number)[];
  'service': (boolean);
}
