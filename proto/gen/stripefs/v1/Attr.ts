// Original file: proto/stripefs/v1/stripefs.proto

import type { FileType as _stripefs_v1_FileType, FileType__Output as _stripefs_v1_FileType__Output } from '../../stripefs/v1/FileType.js';
import type { Layout as _stripefs_v1_Layout, Layout__Output as _stripefs_v1_Layout__Output } from '../../stripefs/v1/Layout.js';
import type { Long } from '@grpc/proto-loader';

export interface Attr {
  'inode'?: (number | string | Long);
  'type'?: (_stripefs_v1_FileType);
  'size'?: (number | string | Long);
  'mtimeMs'?: (number | string | Long);
  'ctimeMs'?: (number | string | Long);
  'mode'?: (number);
  'nlink'?: (number);
  'layout'?: (_stripefs_v1_Layout | null);
  'layoutInherited'?: (boolean);
  'change'?: (number | string | Long);
  'uid'?: (number);
  'gid'?: (number);
  'atimeMs'?: (number | string | Long);
  'symlinkTarget'?: (string);
  'ticket'?: (string);
}

export interface Attr__Output {
  'inode': (number);
  'type': (_stripefs_v1_FileType__Output);
  'size': (number);
  'mtimeMs': (number);
  'ctimeMs': (number);
  'mode': (number);
  'nlink': (number);
  'layout': (_stripefs_v1_Layout__Output | null);
  'layoutInherited': (boolean);
  'change': (number);
  'uid': (number);
  'gid': (number);
  'atimeMs': (number);
  'symlinkTarget': (string);
  'ticket': (string);
}
