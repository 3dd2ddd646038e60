// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface SetAttrRequest {
  'path'?: (string);
  'setMode'?: (boolean);
  'mode'?: (number);
  'setUid'?: (boolean);
  'uid'?: (number);
  'setGid'?: (boolean);
  'gid'?: (number);
  'setMtime'?: (boolean);
  'mtimeMs'?: (number | string | Long);
  'setAtime'?: (boolean);
  'atimeMs'?: (number | string | Long);
}

export interface SetAttrRequest__Output {
  'path': (string);
  'setMode': (boolean);
  'mode': (number);
  'setUid': (boolean);
  'uid': (number);
  'setGid': (boolean);
  'gid': (number);
  'setMtime': (boolean);
  'mtimeMs': (number);
  'setAtime': (boolean);
  'atimeMs': (number);
}
