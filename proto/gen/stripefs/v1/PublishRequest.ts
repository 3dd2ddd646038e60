// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface PublishRequest {
  'path'?: (string);
  'inode'?: (number | string | Long);
  'size'?: (number | string | Long);
  'mtimeMs'?: (number | string | Long);
  'exclusive'?: (boolean);
  'mode'?: (number);
  'uid'?: (number);
  'gid'?: (number);
}

export interface PublishRequest__Output {
  'path': (string);
  'inode': (number);
  'size': (number);
  'mtimeMs': (number);
  'exclusive': (boolean);
  'mode': (number);
  'uid': (number);
  'gid': (number);
}
