// Original file: proto/stripefs/v1/stripefs.proto

import type { Layout as _stripefs_v1_Layout, Layout__Output as _stripefs_v1_Layout__Output } from '../../stripefs/v1/Layout.js';

export interface ReserveInodesRequest {
  'path'?: (string);
  'count'?: (number);
  'layout'?: (_stripefs_v1_Layout | null);
}

export interface ReserveInodesRequest__Output {
  'path': (string);
  'count': (number);
  'layout': (_stripefs_v1_Layout__Output | null);
}
