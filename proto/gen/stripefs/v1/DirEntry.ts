// Original file: proto/stripefs/v1/stripefs.proto

import type { FileType as _stripefs_v1_FileType, FileType__Output as _stripefs_v1_FileType__Output } from '../../stripefs/v1/FileType.js';
import type { Attr as _stripefs_v1_Attr, Attr__Output as _stripefs_v1_Attr__Output } from '../../stripefs/v1/Attr.js';
import type { Long } from '@grpc/proto-loader';

export interface DirEntry {
  'name'?: (string);
  'type'?: (_stripefs_v1_FileType);
  'inode'?: (number | string | Long);
  'attr'?: (_stripefs_v1_Attr | null);
}

export interface DirEntry__Output {
  'name': (string);
  'type': (_stripefs_v1_FileType__Output);
  'inode': (number);
  'attr': (_stripefs_v1_Attr__Output | null);
}
