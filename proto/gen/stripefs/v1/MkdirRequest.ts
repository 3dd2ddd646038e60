// Original file: proto/stripefs/v1/stripefs.proto

import type { Layout as _stripefs_v1_Layout, Layout__Output as _stripefs_v1_Layout__Output } from '../../stripefs/v1/Layout.js';

export interface MkdirRequest {
  'path'?: (string);
  'parents'?: (boolean);
  'layout'?: (_stripefs_v1_Layout | null);
  'mode'?: (number);
  'uid'?: (number);
  'gid'?: (number);
}

export interface MkdirRequest__Output {
  'path': (string);
  'parents': (boolean);
  'layout': (_stripefs_v1_Layout__Output | null);
  'mode': (number);
  'uid': (number);
  'gid': (number);
}
