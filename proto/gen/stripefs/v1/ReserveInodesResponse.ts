// Original file: proto/stripefs/v1/stripefs.proto

import type { ReservedInode as _stripefs_v1_ReservedInode, ReservedInode__Output as _stripefs_v1_ReservedInode__Output } from '../../stripefs/v1/ReservedInode.js';
import type { Layout as _stripefs_v1_Layout, Layout__Output as _stripefs_v1_Layout__Output } from '../../stripefs/v1/Layout.js';
import type { Long } from '@grpc/proto-loader';

export interface ReserveInodesResponse {
  'results'?: (_stripefs_v1_ReservedInode)[];
  'layout'?: (_stripefs_v1_Layout | null);
  'leaseMs'?: (number | string | Long);
  'mapEpoch'?: (number | string | Long);
}

export interface ReserveInodesResponse__Output {
  'results': (_stripefs_v1_ReservedInode__Output)[];
  'layout': (_stripefs_v1_Layout__Output | null);
  'leaseMs': (number);
  'mapEpoch': (number);
}
