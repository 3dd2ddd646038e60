// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface ListReservedResponse {
  'inodes'?: (number | string | Long)[];
  'more'?: (boolean);
}

export interface ListReservedResponse__Output {
  'inodes': (number)[];
  'more': (boolean);
}
