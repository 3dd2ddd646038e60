// Original file: proto/stripefs/v1/stripefs.proto

import type { Layout as _stripefs_v1_Layout, Layout__Output as _stripefs_v1_Layout__Output } from '../../stripefs/v1/Layout.js';
import type { XattrEntry as _stripefs_v1_XattrEntry, XattrEntry__Output as _stripefs_v1_XattrEntry__Output } from '../../stripefs/v1/XattrEntry.js';

export interface CreateRequest {
  'path'?: (string);
  'layout'?: (_stripefs_v1_Layout | null);
  'exclusive'?: (boolean);
  'truncate'?: (boolean);
  'mode'?: (number);
  'uid'?: (number);
  'gid'?: (number);
  'data'?: (Buffer | Uint8Array | string);
  'withData'?: (boolean);
  'xattrs'?: (_stripefs_v1_XattrEntry)[];
}

export interface CreateRequest__Output {
  'path': (string);
  'layout': (_stripefs_v1_Layout__Output | null);
  'exclusive': (boolean);
  'truncate': (boolean);
  'mode': (number);
  'uid': (number);
  'gid': (number);
  'data': (Buffer);
  'withData': (boolean);
  'xattrs': (_stripefs_v1_XattrEntry__Output)[];
}
