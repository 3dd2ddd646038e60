// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface RecoverPgResponse {
  'objectsCopied'?: (number | string | Long);
  'bytesCopied'?: (number | string | Long);
  'objectsSkipped'?: (number | string | Long);
  'objectsFailed'?: (number | string | Long);
}

export interface RecoverPgResponse__Output {
  'objectsCopied': (number);
  'bytesCopied': (number);
  'objectsSkipped': (number);
  'objectsFailed': (number);
}
