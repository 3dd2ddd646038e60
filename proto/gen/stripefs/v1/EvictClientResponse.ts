// Original file: proto/stripefs/v1/stripefs.proto

import type { AuthClient as _stripefs_v1_AuthClient, AuthClient__Output as _stripefs_v1_AuthClient__Output } from '../../stripefs/v1/AuthClient.js';

export interface EvictClientResponse {
  'client'?: (_stripefs_v1_AuthClient | null);
}

export interface EvictClientResponse__Output {
  'client': (_stripefs_v1_AuthClient__Output | null);
}
