// Original file: proto/stripefs/v1/stripefs.proto

import type { ListedObject as _stripefs_v1_ListedObject, ListedObject__Output as _stripefs_v1_ListedObject__Output } from '../../stripefs/v1/ListedObject.js';

export interface ListObjectsResponse {
  'objects'?: (_stripefs_v1_ListedObject)[];
  'nextCursor'?: (string);
}

export interface ListObjectsResponse__Output {
  'objects': (_stripefs_v1_ListedObject__Output)[];
  'nextCursor': (string);
}
