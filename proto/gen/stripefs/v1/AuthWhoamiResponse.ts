// Original file: proto/stripefs/v1/stripefs.proto

import type { AuthIdentity as _stripefs_v1_AuthIdentity, AuthIdentity__Output as _stripefs_v1_AuthIdentity__Output } from '../../stripefs/v1/AuthIdentity.js';

export interface AuthWhoamiResponse {
  'identity'?: (_stripefs_v1_AuthIdentity | null);
  'address'?: (string);
}

export interface AuthWhoamiResponse__Output {
  'identity': (_stripefs_v1_AuthIdentity__Output | null);
  'address': (string);
}
