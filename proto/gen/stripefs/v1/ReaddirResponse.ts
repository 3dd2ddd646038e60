// Original file: proto/stripefs/v1/stripefs.proto

import type { DirEntry as _stripefs_v1_DirEntry, DirEntry__Output as _stripefs_v1_DirEntry__Output } from '../../stripefs/v1/DirEntry.js';

export interface ReaddirResponse {
  'entries'?: (_stripefs_v1_DirEntry)[];
  'nextCursor'?: (string);
}

export interface ReaddirResponse__Output {
  'entries': (_stripefs_v1_DirEntry__Output)[];
  'nextCursor': (string);
}
