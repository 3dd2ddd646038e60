// Original file: proto/stripefs/v1/stripefs.proto

import type { XattrSetMode as _stripefs_v1_XattrSetMode, XattrSetMode__Output as _stripefs_v1_XattrSetMode__Output } from '../../stripefs/v1/XattrSetMode.js';

export interface SetXattrRequest {
  'path'?: (string);
  'name'?: (string);
  'value'?: (Buffer | Uint8Array | string);
  'mode'?: (_stripefs_v1_XattrSetMode);
}

export interface SetXattrRequest__Output {
  'path': (string);
  'name': (string);
  'value': (Buffer);
  'mode': (_stripefs_v1_XattrSetMode__Output);
}
