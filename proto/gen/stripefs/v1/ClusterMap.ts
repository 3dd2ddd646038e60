// Original file: proto/stripefs/v1/stripefs.proto

import type { MapOst as _stripefs_v1_MapOst, MapOst__Output as _stripefs_v1_MapOst__Output } from '../../stripefs/v1/MapOst.js';
import type { MapBucket as _stripefs_v1_MapBucket, MapBucket__Output as _stripefs_v1_MapBucket__Output } from '../../stripefs/v1/MapBucket.js';
import type { Pool as _stripefs_v1_Pool, Pool__Output as _stripefs_v1_Pool__Output } from '../../stripefs/v1/Pool.js';
import type { Long } from '@grpc/proto-loader';

export interface ClusterMap {
  'epoch'?: (number | string | Long);
  'types'?: (string)[];
  'osts'?: (_stripefs_v1_MapOst)[];
  'buckets'?: (_stripefs_v1_MapBucket)[];
  'rootName'?: (string);
  'pools'?: (_stripefs_v1_Pool)[];
}

export interface ClusterMap__Output {
  'epoch': (number);
  'types': (string)[];
  'osts': (_stripefs_v1_MapOst__Output)[];
  'buckets': (_stripefs_v1_MapBucket__Output)[];
  'rootName': (string);
  'pools': (_stripefs_v1_Pool__Output)[];
}
