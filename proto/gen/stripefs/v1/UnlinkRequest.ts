// Original file: proto/stripefs/v1/stripefs.proto


export interface UnlinkRequest {
  'path'?: (string);
}

export interface UnlinkRequest__Output {
  'path': (string);
}
