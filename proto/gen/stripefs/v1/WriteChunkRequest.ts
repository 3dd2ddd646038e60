// Original file: proto/stripefs/v1/stripefs.proto

import type { WriteHeader as _stripefs_v1_WriteHeader, WriteHeader__Output as _stripefs_v1_WriteHeader__Output } from '../../stripefs/v1/WriteHeader.js';

export interface WriteChunkRequest {
  'header'?: (_stripefs_v1_WriteHeader | null);
  'data'?: (Buffer | Uint8Array | string);
  'part'?: "header"|"data";
}

export interface WriteChunkRequest__Output {
  'header'?: (_stripefs_v1_WriteHeader__Output | null);
  'data'?: (Buffer);
  'part'?: "header"|"data";
}
